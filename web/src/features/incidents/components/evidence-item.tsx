import { makeStyles, Text, tokens } from '@fluentui/react-components';
import {
  Code16Regular, DocumentText16Regular, HeartPulse20Regular, Comment16Regular, Organization16Regular, Lightbulb16Regular,
  History16Regular, type FluentIcon,
} from '@fluentui/react-icons';
import { Age } from '../../../components/status/age';
import type { Evidence } from '../api';
import { commentText } from '../mentions';
import { humanize } from '../model';

const ICONS: Record<string, FluentIcon> = {
  log: DocumentText16Regular,
  config: Code16Regular,
  topology: Organization16Regular,
  check: HeartPulse20Regular,
  config_analysis: Lightbulb16Regular,
  config_change: History16Regular,
  comment: Comment16Regular,
};

const useStyles = makeStyles({
  root: { display: 'flex', gap: tokens.spacingHorizontalS, alignItems: 'flex-start', minWidth: 0 },
  icon: { marginTop: '2px', color: tokens.colorNeutralForeground3, flexShrink: 0 },
  body: { display: 'flex', flexDirection: 'column', gap: tokens.spacingVerticalXXS, minWidth: 0, flex: 1 },
  title: { fontWeight: tokens.fontWeightSemibold, overflowWrap: 'anywhere' },
  meta: { color: tokens.colorNeutralForeground3, fontSize: tokens.fontSizeBase200, display: 'flex', gap: tokens.spacingHorizontalS, flexWrap: 'wrap' },
  lines: {
    margin: 0,
    padding: tokens.spacingHorizontalS,
    backgroundColor: tokens.colorNeutralBackground3,
    borderRadius: tokens.borderRadiusMedium,
    fontFamily: tokens.fontFamilyMonospace,
    fontSize: tokens.fontSizeBase200,
    whiteSpace: 'pre-wrap',
    overflowWrap: 'anywhere',
    maxHeight: '160px',
    overflowY: 'auto',
  },
  text: { whiteSpace: 'pre-wrap', overflowWrap: 'anywhere' },
});

const str = (v: unknown) => (typeof v === 'string' || typeof v === 'number' ? String(v) : '');

/** What the evidence points at, by type: the check's or component's name, the config's, the comment's text. */
export function evidenceSubject(e: Evidence & { check?: { name: string } | null }): string {
  const p = e.evidence ?? {};
  switch (e.type) {
    case 'check':
      return e.check?.name ?? str(p.name) ?? '';
    case 'config':
      return str(p.configName) || str(p.name);
    case 'topology':
      return str(p.name) || str(p.componentName);
    case 'comment':
      return commentText(str(p.comment));
    default:
      return str(p.name);
  }
}

/** One line naming the evidence: its description, else what it points at, else its type. */
export function evidenceTitle(e: Evidence): string {
  return e.description?.trim() || evidenceSubject(e) || `${humanize(e.type)} evidence`;
}

function logLines(e: Evidence): string[] {
  const lines = e.evidence?.lines;
  if (!Array.isArray(lines)) return [];
  return lines.map((l) => (typeof l === 'string' ? l : [str((l as Record<string, unknown>).timestamp), str((l as Record<string, unknown>).message)].filter(Boolean).join(' '))).slice(0, 50);
}

/** A catalog item's attached lines ({"12": "text"}), as "12  text" in line order. */
function configLines(e: Evidence): string[] {
  const lines = e.evidence?.lines;
  if (!lines || typeof lines !== 'object' || Array.isArray(lines)) return [];
  return Object.entries(lines as Record<string, unknown>)
    .sort(([a], [b]) => Number(a) - Number(b))
    .map(([n, text]) => `${n.padStart(4)}  ${str(text)}`)
    .slice(0, 50);
}

/** An evidence as the action plan and the definition of done show it, whatever its type. */
export function EvidenceItem({ evidence: e, compact }: { evidence: Evidence & { check?: { name: string; status?: string | null } | null }; compact?: boolean }) {
  const s = useStyles();
  const Icon = ICONS[e.type] ?? DocumentText16Regular;
  const subject = evidenceSubject(e);
  const lines = e.type === 'log' ? logLines(e) : e.type === 'config' ? configLines(e) : [];
  const script = e.script?.trim();
  return (
    <div className={s.root}>
      <Icon className={s.icon} aria-hidden />
      <div className={s.body}>
        <Text className={s.title}>{evidenceTitle(e)}</Text>
        {!compact && (
          <>
            {subject && subject !== evidenceTitle(e) && <Text size={200} className={s.text}>{subject}</Text>}
            {lines.length > 0 && <pre className={s.lines}>{lines.join('\n')}</pre>}
            {script && <pre className={s.lines} aria-label="Script">{script}</pre>}
          </>
        )}
        <span className={s.meta}>
          <span>{humanize(e.type)}</span>
          {e.created_by && <span>by {e.created_by.name}</span>}
          <Age value={e.created_at} />
        </span>
      </div>
    </div>
  );
}
