import { lazy, Suspense } from 'react';
import { makeStyles, Spinner, tokens } from '@fluentui/react-components';

/** A problem Monaco found in the YAML (syntax or schema), 1-based positions. */
export interface YamlProblem {
  message: string;
  severity: 'error' | 'warning' | 'info';
  line: number;
  column: number;
}

export interface YamlEditorProps {
  value: string;
  onChange?: (value: string) => void;
  /** A JSON schema the YAML is checked against (problems show as markers and reach `onValidate`). */
  schema?: object;
  /** Distinguishes schemas when several editors are open (default derived from the schema's title). An absolute URI
   * (`inmemory://schema/x.json`): a relative one is taken for a file to fetch, and the schema is never applied. */
  schemaId?: string;
  readOnly?: boolean;
  /** Editor height (default 360px). */
  height?: string;
  onValidate?: (problems: YamlProblem[]) => void;
  /** Names the editor for assistive technology. */
  label?: string;
  /** Problems found elsewhere (a server's 400 by path), shown as error markers at their lines. */
  markers?: Pick<YamlProblem, 'message' | 'line' | 'column'>[];
}

const useStyles = makeStyles({
  fallback: {
    display: 'flex',
    alignItems: 'center',
    justifyContent: 'center',
    border: `${tokens.strokeWidthThin} solid ${tokens.colorNeutralStroke2}`,
    borderRadius: tokens.borderRadiusLarge,
    backgroundColor: tokens.colorNeutralBackground2,
  },
});

// Monaco and monaco-yaml are about 1 MB gzip: they load with the first editor, never with the app shell
const MonacoYamlEditor = lazy(() => import('./monaco-yaml-editor').then((m) => ({ default: m.MonacoYamlEditor })));

/** The YAML editor (Monaco + monaco-yaml, schema validation), loaded on first use. */
export function YamlEditor(props: YamlEditorProps) {
  const s = useStyles();
  return (
    <Suspense
      fallback={
        <div className={s.fallback} style={{ height: props.height ?? '360px' }}>
          <Spinner size="small" label="Loading editor…" />
        </div>
      }
    >
      <MonacoYamlEditor {...props} />
    </Suspense>
  );
}
