// The console's one Monaco loader (the YAML editor's module sets MonacoEnvironment and its workers); this chunk
// adds the side-by-side diff editor over it.
import '../../../components/code/monaco-yaml-editor';
import * as monaco from 'monaco-editor/esm/vs/editor/editor.api.js';
import { useEffect, useRef } from 'react';
import { makeStyles, tokens } from '@fluentui/react-components';

const useStyles = makeStyles({
  root: { border: `${tokens.strokeWidthThin} solid ${tokens.colorNeutralStroke2}`, borderRadius: tokens.borderRadiusLarge, overflow: 'hidden' },
});

export interface MonacoDiffProps {
  original: string;
  modified: string;
  height?: string;
  label?: string;
}

/** Monaco's read-only side-by-side diff (JSON text, highlighted as YAML, its superset). */
export function MonacoDiff({ original, modified, height = '60vh', label = 'Version comparison' }: MonacoDiffProps) {
  const s = useStyles();
  const host = useRef<HTMLDivElement>(null);
  useEffect(() => {
    const left = monaco.editor.createModel(original, 'yaml');
    const right = monaco.editor.createModel(modified, 'yaml');
    const editor = monaco.editor.createDiffEditor(host.current!, {
      readOnly: true,
      originalEditable: false,
      automaticLayout: true,
      renderSideBySide: true,
      minimap: { enabled: false },
      scrollBeyondLastLine: false,
      fontSize: 13,
      ariaLabel: label,
    });
    editor.setModel({ original: left, modified: right });
    return () => {
      editor.dispose();
      left.dispose();
      right.dispose();
    };
  }, [original, modified, label]);
  return <div ref={host} className={s.root} style={{ height }} data-testid="version-diff" />;
}
