import type { ReactNode } from 'react';
import { makeStyles, Text, tokens } from '@fluentui/react-components';

const useStyles = makeStyles({
  root: {
    display: 'flex',
    flexDirection: 'column',
    gap: tokens.spacingVerticalM,
    padding: tokens.spacingHorizontalXL,
    borderRadius: tokens.borderRadiusXLarge,
    backgroundColor: tokens.colorNeutralBackground1,
    boxShadow: tokens.shadow4,
    minWidth: 0,
  },
  head: { display: 'flex', flexDirection: 'column', gap: tokens.spacingVerticalXXS },
  title: { margin: 0 },
  description: { margin: 0, color: tokens.colorNeutralForeground3 },
});

/** One card of the gallery. */
export function GallerySection({ id, title, description, children }: { id: string; title: string; description?: string; children: ReactNode }) {
  const s = useStyles();
  return (
    <section className={s.root} aria-labelledby={id} data-testid={`kit-${id}`}>
      <div className={s.head}>
        <Text as="h2" id={id} size={500} weight="semibold" className={s.title}>
          {title}
        </Text>
        {description && (
          <Text as="p" size={200} className={s.description}>
            {description}
          </Text>
        )}
      </div>
      {children}
    </section>
  );
}
