import { useId, useMemo, useState } from 'react';
import { Button, Field, Input, makeStyles, Spinner, Text, tokens } from '@fluentui/react-components';
import { AppDialog } from '../../../components/app-dialog';
import { YamlEditor, type YamlProblem } from '../../../components/code/yaml-editor';
import { ApiError, errorMessage } from '../../../lib/api-client';
import { VALIDATION_MESSAGES } from '../../../lib/validation';
import { usePlaybookSpecSchema, useSavePlaybook } from '../api';
import { parseSpec, placeProblems, specToYaml, type PlaybookItem, type SpecProblemAt } from '../model';

const useStyles = makeStyles({
  body: { display: 'flex', flexDirection: 'column', gap: tokens.spacingVerticalM },
  problems: { margin: 0, paddingLeft: tokens.spacingHorizontalL, color: tokens.colorPaletteRedForeground1 },
  error: { color: tokens.colorPaletteRedForeground1 },
});

const SCHEMA_ID = 'inmemory://schema/playbook-spec.schema.json';

const STARTER = `description: What this playbook does
category: Other
parameters:
  - name: message
    label: Message
    type: text
actions:
  - name: echo
    exec:
      script: echo "{{ .params.message }}"
`;

export interface PlaybookEditorDialogProps {
  /** The playbook to edit; none: a new one. */
  playbook?: PlaybookItem;
  onClose: () => void;
  /** After a save: the saved row's id, when the server answered it. */
  onSaved?: (id: string | undefined) => void;
}

/** The server's 400 problems (details: path → message), if that is what the error carries. */
function serverProblems(err: unknown): Record<string, string> | null {
  if (!(err instanceof ApiError) || err.status !== 400) return null;
  const d = err.details;
  if (!d || typeof d !== 'object' || Array.isArray(d)) return null;
  const out = Object.fromEntries(Object.entries(d).filter(([, v]) => typeof v === 'string')) as Record<string, string>;
  return Object.keys(out).length ? out : null;
}

/**
 * Create and edit (spec 001 "Playbook create and edit"): Title (required) and the spec in the YAML editor, checked
 * against the playbook-spec schema as it is typed; the server's 400 problems show at their lines.
 */
export function PlaybookEditorDialog({ playbook, onClose, onSaved }: PlaybookEditorDialogProps) {
  const s = useStyles();
  const titleId = useId();
  const schema = usePlaybookSpecSchema(true);
  const save = useSavePlaybook();
  const [title, setTitle] = useState(playbook?.title || playbook?.name || '');
  const [text, setText] = useState(() => (playbook ? specToYaml(playbook.spec) : STARTER));
  const [touched, setTouched] = useState(false);
  const [problems, setProblems] = useState<YamlProblem[]>([]);
  const [server, setServer] = useState<SpecProblemAt[]>([]);
  const [failure, setFailure] = useState('');
  const parsed = useMemo(() => parseSpec(text), [text]);
  const titleMessage = touched && !title.trim() ? VALIDATION_MESSAGES.required : undefined;
  const editorErrors = problems.filter((p) => p.severity === 'error').length;

  const submit = () => {
    setTouched(true);
    setFailure('');
    if (!title.trim() || 'error' in parsed) return;
    save.mutate(
      { id: playbook?.id, title: title.trim(), spec: parsed.spec },
      {
        onSuccess: (rows) => {
          const id = Array.isArray(rows) ? (rows[0] as { id?: string } | undefined)?.id : undefined;
          onSaved?.(id ?? playbook?.id);
          onClose();
        },
        onError: (err) => {
          const found = serverProblems(err);
          if (found) setServer(placeProblems(text, found));
          setFailure(errorMessage(err));
        },
      },
    );
  };

  const specError = touched && 'error' in parsed ? parsed.error : undefined;
  return (
    <AppDialog
      open
      onOpenChange={(o) => !o && !save.isPending && onClose()}
      title={playbook ? `Edit ${playbook.title || playbook.name}` : 'Create Playbook'}
      size="large"
      expandable
      initialFocus={`#${CSS.escape(titleId)}`}
      actions={
        <>
          <Button appearance="secondary" onClick={onClose} disabled={save.isPending}>Cancel</Button>
          <Button
            appearance="primary"
            disabledFocusable={save.isPending}
            icon={save.isPending ? <Spinner size="tiny" /> : undefined}
            onClick={submit}
          >
            {save.isPending ? 'Saving…' : playbook ? 'Update' : 'Save'}
          </Button>
        </>
      }
    >
      <form
        className={s.body}
        noValidate
        aria-label={playbook ? 'Edit playbook' : 'Create playbook'}
        onSubmit={(e) => {
          e.preventDefault();
          submit();
        }}
      >
        <Field label="Title" required validationMessage={titleMessage}>
          <Input id={titleId} name="title" value={title} autoComplete="off" onChange={(_, d) => setTitle(d.value)} onBlur={() => setTouched(true)} />
        </Field>
        <Field
          label="Spec"
          required
          validationMessage={specError}
          hint={editorErrors ? `${editorErrors} problem${editorErrors === 1 ? '' : 's'} in the spec (marked in the editor)` : 'YAML, checked against the playbook spec schema'}
        >
          <YamlEditor
            value={text}
            onChange={(v) => {
              setText(v);
              if (server.length) setServer([]);
            }}
            schema={schema.data}
            schemaId={SCHEMA_ID}
            markers={server}
            onValidate={setProblems}
            height="50vh"
            label="Playbook spec"
          />
        </Field>
        {server.length > 0 && (
          <div role="alert">
            <ul className={s.problems} aria-label="Problems the server found">
              {server.map((p) => (
                <li key={p.path}>
                  Line {p.line}: {p.path}: {p.message}
                </li>
              ))}
            </ul>
          </div>
        )}
        {failure && !server.length && <Text role="alert" className={s.error}>{failure}</Text>}
      </form>
    </AppDialog>
  );
}
