import type { ReactNode } from 'react';
import {
  Badge, Button, DrawerBody, DrawerHeader, DrawerHeaderTitle, makeStyles, OverlayDrawer, Spinner, Text, tokens,
} from '@fluentui/react-components';
import { Dismiss24Regular, SpeakerMute20Regular } from '@fluentui/react-icons';
import { HealthIndicator } from '../../../components/status/health-indicator';
import { RouteLink } from '../../../components/route-link';
import { errorMessage } from '../../../lib/api-client';
import { formatDateTime, formatDuration } from '../../../lib/format';
import { useSendHistoryItem } from '../api';
import { recipientText, repeatText, resourceKind, silenceHref, statusColor, statusLabel, titleOf, type SendHistoryRow } from '../model';
import { ResourceCell } from './history-columns';
import { Markdown } from './markdown';

const useStyles = makeStyles({
  body: { display: 'flex', flexDirection: 'column', gap: tokens.spacingVerticalL, paddingBottom: tokens.spacingVerticalL },
  facts: { display: 'grid', gridTemplateColumns: 'max-content 1fr', columnGap: tokens.spacingHorizontalL, rowGap: tokens.spacingVerticalS, margin: 0 },
  key: { color: tokens.colorNeutralForeground3 },
  value: { margin: 0, minWidth: 0, overflowWrap: 'anywhere' },
  section: { display: 'flex', flexDirection: 'column', gap: tokens.spacingVerticalS },
  sectionTitle: { fontWeight: tokens.fontWeightSemibold },
  error: {
    fontFamily: tokens.fontFamilyMonospace, fontSize: tokens.fontSizeBase200, whiteSpace: 'pre-wrap', margin: 0,
    color: tokens.colorPaletteRedForeground1, backgroundColor: tokens.colorPaletteRedBackground1, padding: tokens.spacingHorizontalS,
  },
  muted: { color: tokens.colorNeutralForeground3 },
  silence: { display: 'inline-flex', alignItems: 'center', gap: tokens.spacingHorizontalXS },
});

function Fact({ label, children }: { label: string; children: ReactNode }) {
  const s = useStyles();
  return (
    <>
      <dt className={s.key}>{label}</dt>
      <dd className={s.value}>{children}</dd>
    </>
  );
}

export interface SendDrawerProps {
  /** The row clicked (shown at once); the detail call adds the resource and the rendered markdown. */
  row: SendHistoryRow | null;
  onClose: () => void;
}

/** One send: status, resource, recipient, duration, the error, the rendered body (no raw HTML) and a Silence link. */
export function SendDrawer({ row, onClose }: SendDrawerProps) {
  const s = useStyles();
  const detail = useSendHistoryItem(row?.id ?? null);
  const send: SendHistoryRow | null = row ? { ...row, ...(detail.data ?? {}) } : null;
  const kind = send ? resourceKind(send) : '';
  const silence = send ? silenceHref(kind, send.resource?.id ?? send.resource_id) : null;
  const markdown = send?.body_markdown ?? send?.body ?? '';
  const repeat = send ? repeatText(send) : null;
  return (
    <OverlayDrawer open={!!row} position="end" size="medium" onOpenChange={(_, d) => !d.open && onClose()}>
      <DrawerHeader>
        <DrawerHeaderTitle
          action={<Button appearance="subtle" aria-label="Close" icon={<Dismiss24Regular />} onClick={onClose} />}
        >
          {send ? titleOf(send) || 'Notification' : 'Notification'}
        </DrawerHeaderTitle>
      </DrawerHeader>
      <DrawerBody>
        {send && (
          <div className={s.body}>
            <dl className={s.facts}>
              <Fact label="Notification"><Badge appearance="tint" color={statusColor(send.status)}>{statusLabel(send.status)}</Badge></Fact>
              <Fact label="Resource"><ResourceCell row={send} /></Fact>
              {(send.resource_health ?? send.resource?.health) && <Fact label="Health"><HealthIndicator health={send.resource_health ?? send.resource?.health} showLabel /></Fact>}
              {send.source_event && <Fact label="Event">{send.source_event}</Fact>}
              <Fact label="Created">{formatDateTime(send.created_at)}{repeat ? ` (${repeat})` : ''}</Fact>
              {recipientText(send.recipient) && <Fact label="Recipient">{recipientText(send.recipient)}</Fact>}
              <Fact label="Duration">{send.duration_millis === null || send.duration_millis === undefined ? '—' : formatDuration(send.duration_millis)}</Fact>
            </dl>
            {silence && (
              <span className={s.silence}>
                <SpeakerMute20Regular aria-hidden />
                <RouteLink href={silence}>Silence</RouteLink>
              </span>
            )}
            {send.error && (
              <section className={s.section} aria-label="Error">
                <Text className={s.sectionTitle}>Error</Text>
                <pre className={s.error}>{send.error}</pre>
              </section>
            )}
            <section className={s.section} aria-label="Body">
              <Text className={s.sectionTitle}>Body</Text>
              {detail.isLoading && !markdown ? (
                <Spinner size="tiny" label="Loading…" />
              ) : markdown ? (
                <Markdown text={markdown} />
              ) : (
                <Text className={s.muted}>{detail.error ? errorMessage(detail.error) : 'No body was rendered for this send.'}</Text>
              )}
            </section>
          </div>
        )}
      </DrawerBody>
    </OverlayDrawer>
  );
}
