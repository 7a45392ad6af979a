import { tokens, type GriffelStyle } from '@fluentui/react-components';

/** The bordered, rounded frame around a table and its scroller (a column: the scroller takes the rest). */
export const tableFrameStyle: GriffelStyle = {
  display: 'flex',
  flexDirection: 'column',
  minHeight: 0,
  border: `${tokens.strokeWidthThin} solid ${tokens.colorNeutralStroke2}`,
  borderRadius: tokens.borderRadiusLarge,
  backgroundColor: tokens.colorNeutralBackground1,
  overflow: 'hidden',
};

/** The console's grid tables (DataTable, the health pivot): fixed layout, separate borders for sticky cells. */
export const tableStyle: GriffelStyle = {
  width: '100%',
  borderCollapse: 'separate',
  borderSpacing: 0,
  tableLayout: 'fixed',
  fontSize: tokens.fontSizeBase300,
  lineHeight: tokens.lineHeightBase300,
};

/** A header cell that stays at the top of its scroller; each table adds its height, padding, alignment and layer. */
export const stickyHeaderCellStyle: GriffelStyle = {
  position: 'sticky',
  top: 0,
  backgroundColor: tokens.colorNeutralBackground2,
  borderBottom: `${tokens.strokeWidthThin} solid ${tokens.colorNeutralStroke2}`,
  fontWeight: tokens.fontWeightSemibold,
  fontSize: tokens.fontSizeBase200,
  color: tokens.colorNeutralForeground2,
  whiteSpace: 'nowrap',
  overflow: 'hidden',
  textOverflow: 'ellipsis',
};
