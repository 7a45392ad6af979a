import { makeStyles, Text, tokens } from '@fluentui/react-components';
import { PRODUCT_NAME } from '../lib/brand';

const useStyles = makeStyles({
  root: { display: 'inline-flex', alignItems: 'center', gap: tokens.spacingHorizontalS, minWidth: 0 },
  mark: { flexShrink: 0, display: 'block' },
  name: { whiteSpace: 'nowrap', color: tokens.colorNeutralForeground1 },
});

/** The product mark, optionally with its name. */
export function Logo({ size = 28, withName = true }: { size?: number; withName?: boolean }) {
  const s = useStyles();
  return (
    <span className={s.root}>
      <svg className={s.mark} width={size} height={size} viewBox="0 0 32 32" aria-hidden="true">
        <rect width="32" height="32" rx="7" fill={tokens.colorBrandBackground} />
        <path
          d="M7 22V10l5 7 4-6 4 6 5-7v12"
          fill="none"
          stroke="#fff"
          strokeWidth="2.6"
          strokeLinecap="round"
          strokeLinejoin="round"
        />
      </svg>
      {withName && (
        <Text weight="semibold" size={400} className={s.name}>
          {PRODUCT_NAME}
        </Text>
      )}
    </span>
  );
}
