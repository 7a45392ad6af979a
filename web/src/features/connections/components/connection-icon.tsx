import type { ReactElement } from 'react';
import {
  Alert20Regular,
  AlertUrgent20Regular,
  BookDatabase20Regular,
  BranchFork20Regular,
  Chat20Regular,
  ChatMultiple20Regular,
  Cloud20Regular,
  CloudArchive20Regular,
  Code20Regular,
  Database20Regular,
  DataTrending20Regular,
  Folder20Regular,
  Globe20Regular,
  Key20Regular,
  Link20Regular,
  Mail20Regular,
  Organization20Regular,
  PeopleTeam20Regular,
  PersonKey20Regular,
  PlugConnected20Regular,
  Search20Regular,
  Send20Regular,
  Server20Regular,
  Storage20Regular,
  Window20Regular,
} from '@fluentui/react-icons';

/**
 * The descriptors' icon names (server/contracts/connection-types.ts) as glyphs. The reference ships a brand icon
 * per type; we show a glyph of what the thing is (a database, a chat, a cloud), so an unknown name still reads.
 */
const ICONS: Record<string, ReactElement> = {
  postgres: <Database20Regular />,
  mysql: <Database20Regular />,
  sqlserver: <Database20Regular />,
  mongo: <BookDatabase20Regular />,
  redis: <Storage20Regular />,
  http: <Globe20Regular />,
  webhook: <Link20Regular />,
  prometheus: <DataTrending20Regular />,
  elasticsearch: <Search20Regular />,
  dynatrace: <DataTrending20Regular />,
  ldap: <PersonKey20Regular />,
  windows: <Window20Regular />,
  'google-cloud': <Cloud20Regular />,
  gcs: <CloudArchive20Regular />,
  aws: <Cloud20Regular />,
  'aws-s3': <CloudArchive20Regular />,
  azure: <Cloud20Regular />,
  'azure-devops': <Organization20Regular />,
  kubernetes: <Server20Regular />,
  sftp: <Folder20Regular />,
  smb: <Folder20Regular />,
  folder: <Folder20Regular />,
  restic: <CloudArchive20Regular />,
  github: <BranchFork20Regular />,
  gitlab: <BranchFork20Regular />,
  git: <BranchFork20Regular />,
  jmeter: <Code20Regular />,
  email: <Mail20Regular />,
  slack: <Chat20Regular />,
  teams: <PeopleTeam20Regular />,
  discord: <ChatMultiple20Regular />,
  'google-chat': <Chat20Regular />,
  mattermost: <ChatMultiple20Regular />,
  matrix: <ChatMultiple20Regular />,
  rocketchat: <ChatMultiple20Regular />,
  zulip: <ChatMultiple20Regular />,
  telegram: <Send20Regular />,
  ntfy: <Alert20Regular />,
  pushbullet: <Alert20Regular />,
  pushover: <Alert20Regular />,
  opsgenie: <AlertUrgent20Regular />,
  ifttt: <Key20Regular />,
};

/** A connection type's icon; decorative (the type's name is always written beside it). */
export function ConnectionIcon({ icon }: { icon: string | undefined }) {
  return (
    <span aria-hidden="true" style={{ display: 'inline-flex', flexShrink: 0 }}>
      {(icon && ICONS[icon]) ?? <PlugConnected20Regular />}
    </span>
  );
}
