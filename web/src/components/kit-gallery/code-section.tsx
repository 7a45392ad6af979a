import { useState } from 'react';
import { makeStyles, Text, tokens } from '@fluentui/react-components';
import { CodeViewer } from '../code/code-viewer';
import { YamlEditor, type YamlProblem } from '../code/yaml-editor';
import { GallerySection } from './section';
import { SAMPLE_CONFIG, SAMPLE_SCHEMA, SAMPLE_YAML } from './samples';

const useStyles = makeStyles({
  grid: { display: 'grid', gridTemplateColumns: 'repeat(auto-fit, minmax(380px, 1fr))', gap: tokens.spacingHorizontalL },
  problems: { margin: 0, paddingInlineStart: tokens.spacingHorizontalL, color: tokens.colorPaletteRedForeground1, fontSize: tokens.fontSizeBase200 },
  ok: { color: tokens.colorPaletteGreenForeground1 },
});

export function CodeSection() {
  const s = useStyles();
  const [yaml, setYaml] = useState(SAMPLE_YAML);
  const [problems, setProblems] = useState<YamlProblem[] | null>(null);
  return (
    <GallerySection id="code" title="Code" description="A light read-only viewer (click line numbers; the selection is the URL's selected parameter) and the Monaco YAML editor, loaded on demand, checking against a JSON schema.">
      <div className={s.grid}>
        <CodeViewer code={SAMPLE_CONFIG} language="json" label="Deployment as JSON" maxHeight="360px" />
        <CodeViewer code={SAMPLE_YAML} language="yaml" selectionParam={false} label="Canary as YAML" maxHeight="360px" />
      </div>
      <YamlEditor value={yaml} onChange={setYaml} schema={SAMPLE_SCHEMA} onValidate={setProblems} height="300px" label="Canary spec" />
      {problems &&
        (problems.length ? (
          <ul className={s.problems} aria-label="Problems">
            {problems.map((p, i) => (
              <li key={i}>
                Line {p.line}: {p.message}
              </li>
            ))}
          </ul>
        ) : (
          <Text size={200} className={s.ok}>
            No problems: the YAML matches the schema.
          </Text>
        ))}
    </GallerySection>
  );
}
