import { Badge, Button, Card, CardHeader, makeStyles, Text, tokens, Tooltip } from '@fluentui/react-components';
import { Delete20Regular, Edit20Regular, History20Regular, Play20Regular } from '@fluentui/react-icons';
import { Link as RouterLink } from 'wouter';
import { isEditable, sourceText, type PlaybookItem } from '../model';
import { PlaybookIcon } from './playbook-icon';

const useStyles = makeStyles({
  card: { height: '100%' },
  title: { fontWeight: tokens.fontWeightSemibold, color: tokens.colorNeutralForeground1, textDecoration: 'none', ':hover': { textDecoration: 'underline' } },
  description: { color: tokens.colorNeutralForeground2, display: '-webkit-box', WebkitLineClamp: 3, WebkitBoxOrient: 'vertical', overflow: 'hidden' },
  footer: { display: 'flex', flexWrap: 'wrap', gap: tokens.spacingHorizontalXS, marginTop: 'auto', alignItems: 'center' },
  icon: { color: tokens.colorBrandForeground1, fontSize: '24px' },
});

export interface PlaybookCardProps {
  playbook: PlaybookItem;
  href: string;
  historyHref: string;
  canRun: boolean;
  canWrite: boolean;
  onRun: () => void;
  onEdit: () => void;
  onDelete: () => void;
}

/** One playbook: icon, title (its page), description; Run, History, and Edit/Delete for writers of console ones. */
export function PlaybookCard({ playbook, href, historyHref, canRun, canWrite, onRun, onEdit, onDelete }: PlaybookCardProps) {
  const s = useStyles();
  const title = playbook.title || playbook.name;
  const editable = isEditable(playbook);
  return (
    <Card className={s.card} role="listitem" aria-label={title}>
      <CardHeader
        image={<span className={s.icon}><PlaybookIcon icon={playbook.icon} /></span>}
        header={
          <RouterLink href={href} className={s.title}>
            {title}
          </RouterLink>
        }
        description={!editable ? <Badge appearance="outline" size="small">{sourceText(playbook)}</Badge> : undefined}
      />
      {playbook.description && <Text className={s.description}>{playbook.description}</Text>}
      <div className={s.footer}>
        {canRun && (
          <Button size="small" appearance="primary" icon={<Play20Regular />} onClick={onRun} aria-label={`Run ${title}`}>
            Run
          </Button>
        )}
        <RouterLink href={historyHref} asChild>
          <Button as="a" size="small" icon={<History20Regular />} aria-label={`History of ${title}`}>History</Button>
        </RouterLink>
        {canWrite && editable && (
          <>
            <Tooltip content={`Edit ${title}`} relationship="label">
              <Button size="small" appearance="subtle" icon={<Edit20Regular />} onClick={onEdit} />
            </Tooltip>
            <Tooltip content={`Delete ${title}`} relationship="label">
              <Button size="small" appearance="subtle" icon={<Delete20Regular />} onClick={onDelete} />
            </Tooltip>
          </>
        )}
      </div>
    </Card>
  );
}
