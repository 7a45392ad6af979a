import { useEffect, useState, type ReactNode } from 'react';
import { FormProvider, type FieldValues, type UseFormReturn } from 'react-hook-form';
import { Button, makeStyles, MessageBar, MessageBarBody, MessageBarTitle, Spinner, Tab, TabList, tokens } from '@fluentui/react-components';
import { Delete20Regular } from '@fluentui/react-icons';
import { YamlEditor, type YamlProblem } from '../../../components/code/yaml-editor';
import { ConfirmDialog } from '../../../components/dialogs/confirm-dialog';

const useStyles = makeStyles({
  root: { display: 'flex', flexDirection: 'column', gap: tokens.spacingVerticalM },
  problems: { margin: 0, paddingInlineStart: tokens.spacingHorizontalXL },
  actions: {
    display: 'flex',
    gap: tokens.spacingHorizontalS,
    paddingTop: tokens.spacingVerticalM,
    borderTop: `${tokens.strokeWidthThin} solid ${tokens.colorNeutralStroke2}`,
  },
  spacer: { flex: 1 },
});

export type SpecTab = 'form' | 'code';

/** The Code tab: the spec as YAML, checked against the kind's JSON schema while it is there. */
export interface SpecCode {
  value: string;
  onChange: (yaml: string) => void;
  schema: Record<string, unknown> | null | undefined;
  /** The schema is still loading (a spinner instead of the editor), or could not be loaded (`error`: said so). */
  schemaState: 'ready' | 'loading' | { error: string };
  schemaId: string;
  label: string;
}

export interface SpecEditorFrameProps<T extends FieldValues> {
  form: UseFormReturn<T>;
  /** The form's name ("Catalog Scraper", "Health check"); "The {what} was not saved" names it in lower case. */
  label: string;
  what: string;
  /** Without a spec there are no Form/Code tabs: the Form is all. */
  hasSpec?: boolean;
  tab: SpecTab;
  onTab: (tab: SpecTab) => void;
  problems: readonly string[];
  /** Above the tabs: where the row comes from, a conflict. */
  banner?: ReactNode;
  fields: ReactNode;
  code: SpecCode;
  readOnly: boolean;
  editing: boolean;
  busy: boolean;
  /** Save also waits for the schema (the canary's Code tab may not save unchecked). */
  blockWithoutSchema?: boolean;
  /** 'Saving…' while a save is pending; an update says 'Updating…' unless this is set. */
  busyLabel?: string;
  onSubmit: () => void;
  backLabel?: string;
  onBack: () => void;
  /** Delete (editing and writable only) with a confirmation. */
  remove?: { title: string; description: string; busy: boolean; onConfirm: () => void };
}

/**
 * The one Form/Code frame of every settings spec editor (generic resources, health checks, scrapers): the tabs, the
 * problems the server or the YAML gave, the Code tab's schema markers (which block Save), and Save/Update, Back and
 * Delete. What each tab holds and how a save is sent stay the editor's own.
 */
export function SpecEditorFrame<T extends FieldValues>(p: SpecEditorFrameProps<T>) {
  const s = useStyles();
  const [markers, setMarkers] = useState<YamlProblem[]>([]);
  const [deleting, setDeleting] = useState(false);
  const markerErrors = p.tab === 'code' ? markers.filter((m) => m.severity === 'error') : [];
  const blocked = p.tab === 'code' && (markerErrors.length > 0 || (!!p.blockWithoutSchema && p.code.schemaState !== 'ready'));
  const state = p.code.schemaState;
  // the markers are the Code tab's: once the Form is shown they no longer hold (the editor marks again when back)
  useEffect(() => {
    if (p.tab === 'form') setMarkers([]);
  }, [p.tab]);
  return (
    <div className={s.root}>
      {p.banner}
      {p.hasSpec !== false && (
        <TabList
          selectedValue={p.tab}
          onTabSelect={(_, d) => d.value !== p.tab && p.onTab(d.value as SpecTab)}
          aria-label="Spec editor"
          size="small"
        >
          <Tab value="form">Form</Tab>
          <Tab value="code">Code</Tab>
        </TabList>
      )}
      {p.problems.length > 0 && (
        <MessageBar intent="error" layout="multiline">
          <MessageBarBody>
            <MessageBarTitle>The {p.what} was not saved</MessageBarTitle>
            <ul className={s.problems} aria-label="Problems">
              {p.problems.map((m) => <li key={m}>{m}</li>)}
            </ul>
          </MessageBarBody>
        </MessageBar>
      )}
      <FormProvider {...p.form}>
        <form
          noValidate
          aria-label={p.label}
          onSubmit={(e) => {
            e.preventDefault();
            p.onSubmit();
          }}
        >
          {p.tab === 'form' ? (
            p.fields
          ) : state === 'ready' ? (
            <YamlEditor
              value={p.code.value}
              onChange={p.code.onChange}
              schema={p.code.schema ?? undefined}
              schemaId={p.code.schemaId}
              onValidate={setMarkers}
              readOnly={p.readOnly}
              height="480px"
              label={p.code.label}
            />
          ) : (
            <Spinner size="small" label={state === 'loading' ? 'Loading the spec schema…' : `The spec schema could not be loaded: ${state.error}`} />
          )}
          {markerErrors.length > 0 && (
            <MessageBar intent="warning" role="status">
              <MessageBarBody>
                {markerErrors.length === 1 ? '1 problem' : `${markerErrors.length} problems`} in the spec (line {markerErrors[0].line}: {markerErrors[0].message}); fix {markerErrors.length === 1 ? 'it' : 'them'} to save.
              </MessageBarBody>
            </MessageBar>
          )}
          <div className={s.actions}>
            {!p.readOnly && (
              <Button type="submit" appearance="primary" disabled={p.busy || blocked} icon={p.busy ? <Spinner size="tiny" /> : undefined}>
                {p.busy ? (p.busyLabel ?? (p.editing ? 'Updating…' : 'Saving…')) : p.editing ? 'Update' : 'Save'}
              </Button>
            )}
            <Button onClick={p.onBack}>{p.backLabel ?? 'Back'}</Button>
            <span className={s.spacer} />
            {p.editing && !p.readOnly && p.remove && (
              <Button appearance="subtle" icon={<Delete20Regular />} onClick={() => setDeleting(true)}>
                Delete
              </Button>
            )}
          </div>
        </form>
      </FormProvider>
      {deleting && p.remove && (
        <ConfirmDialog
          open
          title={p.remove.title}
          description={p.remove.description}
          confirmLabel="Delete"
          danger
          busy={p.remove.busy}
          onConfirm={p.remove.onConfirm}
          onCancel={() => setDeleting(false)}
        />
      )}
    </div>
  );
}
