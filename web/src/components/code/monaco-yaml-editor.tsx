// The slim Monaco of TOOLCHAIN.md "Monaco the Vite way": the editor core and YAML only, not every language.
import 'monaco-editor/esm/vs/editor/edcore.main.js';
import 'monaco-editor/esm/vs/basic-languages/yaml/yaml.contribution.js';
import * as monaco from 'monaco-editor/esm/vs/editor/editor.api.js';
import EditorWorker from 'monaco-editor/esm/vs/editor/editor.worker.js?worker';
import { configureMonacoYaml, type MonacoYaml } from 'monaco-yaml';
import { useEffect, useRef } from 'react';
import { makeStyles, tokens } from '@fluentui/react-components';
import YamlWorker from './yaml.worker.ts?worker';
import type { YamlEditorProps, YamlProblem } from './yaml-editor';

window.MonacoEnvironment = {
  getWorker: (_id: string, label: string) => (label === 'yaml' ? new YamlWorker() : new EditorWorker()),
};

// one monaco-yaml per page: its options hold every open editor's schema, keyed by model URI
let yaml: MonacoYaml | undefined;
const schemas = new Map<string, { uri: string; fileMatch: string[]; schema: object }>();

function updateSchemas() {
  const list = [...schemas.values()];
  if (!yaml) {
    yaml = configureMonacoYaml(monaco, { enableSchemaRequest: false, validate: true, hover: true, completion: true, format: { enable: true }, schemas: list });
  } else void yaml.update({ ...yaml.getOptions(), schemas: list });
}

let counter = 0;

const SEVERITY: Record<number, YamlProblem['severity']> = {
  [monaco.MarkerSeverity.Error]: 'error',
  [monaco.MarkerSeverity.Warning]: 'warning',
};

const isSchemaWarning = (m: monaco.editor.IMarker) => m.severity === monaco.MarkerSeverity.Warning && !!m.source?.startsWith('yaml-schema:');

const useStyles = makeStyles({
  root: {
    border: `${tokens.strokeWidthThin} solid ${tokens.colorNeutralStroke2}`,
    borderRadius: tokens.borderRadiusLarge,
    overflow: 'hidden',
  },
});

export function MonacoYamlEditor({ value, onChange, schema, schemaId, readOnly, height = '360px', onValidate, label = 'YAML editor', markers }: YamlEditorProps) {
  const s = useStyles();
  const host = useRef<HTMLDivElement>(null);
  const editorRef = useRef<monaco.editor.IStandaloneCodeEditor | null>(null);
  const callbacks = useRef({ onChange, onValidate });
  callbacks.current = { onChange, onValidate };
  const modelUri = useRef(monaco.Uri.parse(`file:///editor-${++counter}.yaml`));

  useEffect(() => {
    const uri = modelUri.current;
    const model = monaco.editor.createModel(value, 'yaml', uri);
    const editor = monaco.editor.create(host.current!, {
      model,
      readOnly,
      automaticLayout: true,
      minimap: { enabled: false },
      scrollBeyondLastLine: false,
      fontSize: 13,
      tabSize: 2,
      renderLineHighlight: 'line',
      ariaLabel: label,
      quickSuggestions: { other: true, comments: false, strings: true },
    });
    editorRef.current = editor;
    const changes = model.onDidChangeContent(() => callbacks.current.onChange?.(model.getValue()));
    const markers = monaco.editor.onDidChangeMarkers((uris) => {
      if (!uris.some((u) => u.toString() === uri.toString())) return;
      // yaml-language-server reports every schema violation as a warning; here they are errors (the YAML does not fit)
      const own = monaco.editor.getModelMarkers({ resource: uri, owner: 'yaml' });
      if (own.some(isSchemaWarning)) {
        // re-setting the markers fires this listener again, then with nothing left to promote
        monaco.editor.setModelMarkers(model, 'yaml', own.map((m) => (isSchemaWarning(m) ? { ...m, severity: monaco.MarkerSeverity.Error } : m)));
        return;
      }
      const problems = monaco.editor.getModelMarkers({ resource: uri }).map((m) => ({
        message: m.message,
        severity: SEVERITY[m.severity] ?? 'info',
        line: m.startLineNumber,
        column: m.startColumn,
      }));
      callbacks.current.onValidate?.(problems);
    });
    return () => {
      changes.dispose();
      markers.dispose();
      editor.dispose();
      model.dispose();
      schemas.delete(uri.toString());
    };
    // the editor is created once; value, schema and readOnly flow in through the effects below
  }, []);

  useEffect(() => {
    const model = editorRef.current?.getModel();
    // only push outside changes: echoing the user's own typing back would move the cursor
    if (model && model.getValue() !== value) model.setValue(value);
  }, [value]);

  useEffect(() => editorRef.current?.updateOptions({ readOnly }), [readOnly]);

  useEffect(() => {
    const model = editorRef.current?.getModel();
    if (!model) return;
    monaco.editor.setModelMarkers(model, 'external', (markers ?? []).map((m) => ({
      message: m.message,
      severity: monaco.MarkerSeverity.Error,
      startLineNumber: m.line,
      startColumn: m.column,
      endLineNumber: m.line,
      endColumn: model.getLineMaxColumn(Math.min(Math.max(m.line, 1), model.getLineCount())),
    })));
  }, [markers]);

  useEffect(() => {
    const uri = modelUri.current.toString();
    if (schema) {
      const id = schemaId ?? `inmemory://schema/${(schema as { title?: string }).title ?? 'schema'}-${uri.slice(-8)}`;
      schemas.set(uri, { uri: id, fileMatch: [uri], schema });
    } else schemas.delete(uri);
    updateSchemas();
  }, [schema, schemaId]);

  return <div ref={host} className={s.root} style={{ height }} role="group" aria-label={label} />;
}
