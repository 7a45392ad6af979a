import { makeStyles, Text, tokens } from '@fluentui/react-components';
import { AppDialog } from '../../../../components/app-dialog';
import { displayParams } from '../model';

const useStyles = makeStyles({
  table: { borderCollapse: 'collapse', width: '100%' },
  cell: { textAlign: 'start', verticalAlign: 'top', padding: `${tokens.spacingVerticalXS} ${tokens.spacingHorizontalS}`, borderBottom: `${tokens.strokeWidthThin} solid ${tokens.colorNeutralStroke2}` },
  value: { fontFamily: tokens.fontFamilyMonospace, whiteSpace: 'pre-wrap', wordBreak: 'break-word' },
  muted: { color: tokens.colorNeutralForeground3 },
});

export interface ParamsDialogProps {
  open: boolean;
  onOpenChange: (open: boolean) => void;
  parameters: Record<string, unknown> | null | undefined;
  /** The run's copy of the spec: its parameter types say which values are secrets. */
  spec: unknown;
}

/** The parameters the run was started with; `secret` ones show as `***`. */
export function ParamsDialog({ open, onOpenChange, parameters, spec }: ParamsDialogProps) {
  const s = useStyles();
  const rows = displayParams(parameters, spec);
  return (
    <AppDialog open={open} onOpenChange={onOpenChange} title="Parameters" size="small">
      {rows.length === 0 ? (
        <Text className={s.muted}>This run has no parameters.</Text>
      ) : (
        <table className={s.table}>
          <thead>
            <tr>
              <th className={s.cell} scope="col">Name</th>
              <th className={s.cell} scope="col">Value</th>
            </tr>
          </thead>
          <tbody>
            {rows.map((r) => (
              <tr key={r.name}>
                <th className={s.cell} scope="row">{r.label}</th>
                <td className={`${s.cell} ${s.value}`}>{r.value}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </AppDialog>
  );
}
