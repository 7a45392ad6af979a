import { useLayoutEffect, type ReactNode } from 'react';
import { makeStyles, tokens } from '@fluentui/react-components';
import { PRODUCT_NAME } from '../lib/brand';
import { createStore } from '../lib/store';

/** What the shell's top bar shows for the current page. */
export interface PageHeader {
  title: string;
  /** Extra content next to the title (filters, tabs, buttons). */
  extra?: ReactNode;
  /** Shows a refresh button that calls this. */
  onRefresh?: () => void;
  /** The refresh button spins while true. */
  refreshing?: boolean;
}

/** The current page's header, read by the top bar. */
export const pageHeaderStore = createStore<PageHeader>({ title: '' });

const useStyles = makeStyles({
  content: {
    flex: 1,
    minHeight: 0,
    overflow: 'auto',
    padding: `${tokens.spacingVerticalL} ${tokens.spacingHorizontalXXL}`,
  },
});

/** A page inside the shell: hands its header to the top bar and lays out its content. */
export function Page({ title, extra, onRefresh, refreshing, children }: PageHeader & { children?: ReactNode }) {
  const s = useStyles();
  useLayoutEffect(() => {
    pageHeaderStore.set({ title, extra, onRefresh, refreshing });
  }, [title, extra, onRefresh, refreshing]);
  useLayoutEffect(() => {
    document.title = title ? `${title} · ${PRODUCT_NAME}` : PRODUCT_NAME;
  }, [title]);
  return <div className={s.content}>{children}</div>;
}
