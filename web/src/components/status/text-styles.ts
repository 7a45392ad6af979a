import { tokens, type GriffelStyle } from '@fluentui/react-components';

/**
 * What Fluent's `<Text size={200}>` applies, as a style object to spread into a component's own class. Table cells
 * use it on a plain <span>: a Text is a component with its own style hooks and slot machinery, and a 10,000-row
 * table renders a screenful of new cells on every scroll frame. Properties after the spread override, as a
 * `className` given to Text does.
 */
export const text200: GriffelStyle = {
  fontFamily: tokens.fontFamilyBase,
  fontSize: tokens.fontSizeBase200,
  lineHeight: tokens.lineHeightBase200,
  fontWeight: tokens.fontWeightRegular,
  textAlign: 'start',
  display: 'inline',
  whiteSpace: 'normal',
  overflow: 'visible',
  textOverflow: 'clip',
};
