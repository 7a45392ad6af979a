import { useLayoutEffect, type ReactNode } from 'react';
import { Card, makeStyles, Text, tokens } from '@fluentui/react-components';
import { Logo } from '../../components/logo';
import { PRODUCT_NAME } from '../../lib/brand';

const useStyles = makeStyles({
  root: {
    minHeight: '100vh',
    display: 'flex',
    flexDirection: 'column',
    alignItems: 'center',
    justifyContent: 'center',
    gap: tokens.spacingVerticalXXL,
    padding: tokens.spacingHorizontalXL,
    boxSizing: 'border-box',
    backgroundColor: tokens.colorNeutralBackground2,
    backgroundImage: `radial-gradient(circle at 50% 0%, ${tokens.colorBrandBackground2} 0%, transparent 55%)`,
  },
  card: {
    width: '100%',
    maxWidth: '400px',
    boxSizing: 'border-box',
    padding: `${tokens.spacingVerticalXXL} ${tokens.spacingHorizontalXXL}`,
    gap: tokens.spacingVerticalL,
    boxShadow: tokens.shadow16,
  },
  heading: { display: 'flex', flexDirection: 'column', gap: tokens.spacingVerticalXS },
  title: { margin: 0 },
  subtitle: { color: tokens.colorNeutralForeground2 },
  footer: { color: tokens.colorNeutralForeground3 },
});

/** The centered card of the sign-in, registration and other pages outside the shell. */
export function AuthLayout({ title, subtitle, children }: { title: string; subtitle?: ReactNode; children: ReactNode }) {
  const s = useStyles();
  useLayoutEffect(() => {
    document.title = `${title} · ${PRODUCT_NAME}`;
  }, [title]);
  return (
    <main className={s.root}>
      <Logo size={40} />
      <Card className={s.card}>
        <div className={s.heading}>
          <Text as="h1" size={600} weight="semibold" className={s.title}>
            {title}
          </Text>
          {subtitle && <Text className={s.subtitle}>{subtitle}</Text>}
        </div>
        {children}
      </Card>
      <Text size={200} className={s.footer}>
        Operations console v{__APP_VERSION__}
      </Text>
    </main>
  );
}
