import { useState } from 'react';
import { Badge, Button, Caption1, Dropdown, Field, makeStyles, MessageBar, MessageBarBody, Option, Spinner, Text, tokens } from '@fluentui/react-components';
import { Send20Regular } from '@fluentui/react-icons';
import { useMutation } from '@tanstack/react-query';
import type { TestSendResponse } from '@contracts/notifications';
import { ResourcePicker } from '../../../components/playbooks/resource-picker';
import type { ResourceKind } from '../../../components/playbooks/api';
import { api, errorMessage } from '../../../lib/api-client';

const useStyles = makeStyles({
  root: {
    display: 'flex', flexDirection: 'column', gap: tokens.spacingVerticalS, padding: tokens.spacingVerticalM,
    border: `${tokens.strokeWidthThin} solid ${tokens.colorNeutralStroke2}`, borderRadius: tokens.borderRadiusMedium,
  },
  row: { display: 'grid', gridTemplateColumns: '1fr 1fr auto', gap: tokens.spacingHorizontalM, alignItems: 'end' },
  list: { display: 'flex', flexDirection: 'column', gap: tokens.spacingVerticalXS, margin: 0, padding: 0, listStyle: 'none' },
  item: { display: 'flex', gap: tokens.spacingHorizontalS, alignItems: 'baseline', flexWrap: 'wrap' },
  error: { color: tokens.colorPaletteRedForeground1, wordBreak: 'break-word' },
});

/** The resource kind an event is about, for the kinds a test send renders (check, component, catalog). */
export function testKindOf(event: string): ResourceKind | null {
  const prefix = event.split('.')[0];
  return prefix === 'check' || prefix === 'component' || prefix === 'config' ? prefix : null;
}

/** What a recipient is, in a line: the person's email, the team's entry, the custom service's (masked) URL. */
export function recipientLabel(r: Record<string, unknown>): string {
  if (r.kind === 'person') return `Person ${String(r.email ?? r.person_id ?? '')}`.trim();
  const where = String(r.connection ?? r.url ?? '');
  return `${r.kind === 'team' ? 'Team entry' : 'Service'} ${Number(r.index ?? 0) + 1}${where ? `: ${where}` : ''}`;
}

export interface TestSendPanelProps {
  /** The saved rule (its stored secrets stand behind masked URLs in the form). */
  ruleId?: string;
  events: string[];
  /** The rule as the form holds it now (ruleWriteBody). */
  body: () => Record<string, unknown>;
}

/**
 * "Test send" (issue 15 "Beyond the reference"): the rule as the form holds it, rendered for a chosen check, component
 * or catalog item and sent now to each recipient; each recipient's outcome is listed. Nothing is saved.
 */
export function TestSendPanel({ ruleId, events, body }: TestSendPanelProps) {
  const s = useStyles();
  const testable = events.filter((e) => testKindOf(e));
  const [event, setEvent] = useState('');
  const [resource, setResource] = useState('');
  const chosen = testable.includes(event) ? event : (testable[0] ?? '');
  const kind = testKindOf(chosen);
  const send = useMutation({
    meta: { silent: true },
    mutationFn: () => api.post<TestSendResponse>('/api/notification/test', { ...(ruleId ? { id: ruleId } : {}), rule: body(), event: chosen, resource_id: resource }),
  });
  return (
    <section className={s.root} aria-label="Test send">
      <Text weight="semibold">Test send</Text>
      {!testable.length ? (
        <Caption1>Choose a check, component or catalog event to send a test for one resource.</Caption1>
      ) : (
        <>
          <div className={s.row}>
            <Field label="Test event">
              <Dropdown
                aria-label="Test event"
                value={chosen}
                selectedOptions={[chosen]}
                onOptionSelect={(_, d) => {
                  if (testKindOf(d.optionValue ?? '') !== kind) setResource('');
                  setEvent(d.optionValue ?? '');
                }}
              >
                {testable.map((e) => <Option key={e} value={e}>{e}</Option>)}
              </Dropdown>
            </Field>
            {kind && <ResourcePicker key={kind} kind={kind} value={resource} onChange={setResource} label="Test resource" />}
            <Button
              icon={send.isPending ? <Spinner size="tiny" /> : <Send20Regular />}
              disabledFocusable={!resource || send.isPending}
              onClick={() => send.mutate()}
            >
              {send.isPending ? 'Sending…' : 'Send test'}
            </Button>
          </div>
          {send.isError && (
            <MessageBar intent="error"><MessageBarBody>{errorMessage(send.error)}</MessageBarBody></MessageBar>
          )}
          {send.data && <TestSendResults data={send.data} />}
        </>
      )}
    </section>
  );
}

function TestSendResults({ data }: { data: TestSendResponse }) {
  const s = useStyles();
  return (
    <div role="status" aria-live="polite">
      <Caption1>
        {`"${data.title}" for ${data.resource.name}`}
        {data.filter === false && ` · the filter does not match it${data.filter_error ? ` (${data.filter_error})` : ''}; sent anyway`}
      </Caption1>
      {!data.results.length ? (
        <Caption1 block>No recipient: the team has no notification entries, or every entry's filter skipped this resource.</Caption1>
      ) : (
        <ul className={s.list} aria-label="Test send results">
          {data.results.map((r, i) => (
            <li key={i} className={s.item}>
              <Badge appearance="tint" color={r.status === 'sent' ? 'success' : 'danger'}>{r.status === 'sent' ? 'Sent' : 'Failed'}</Badge>
              <Text>{recipientLabel(r.recipient)}</Text>
              {r.duration_millis !== null && <Caption1>{`${r.duration_millis} ms`}</Caption1>}
              {r.error && <Caption1 className={s.error}>{r.error}</Caption1>}
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}
