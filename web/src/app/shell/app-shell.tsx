import type { ReactNode } from 'react';
import { makeStyles, tokens } from '@fluentui/react-components';
import { Sidebar } from './sidebar';
import { TopBar } from './top-bar';

const useStyles = makeStyles({
  root: { display: 'flex', minHeight: '100vh', backgroundColor: tokens.colorNeutralBackground1 },
  column: { flex: 1, minWidth: 0, display: 'flex', flexDirection: 'column', height: '100vh' },
  content: { flex: 1, minHeight: 0, display: 'flex', flexDirection: 'column' },
  skip: {
    position: 'absolute',
    left: '-9999px',
    ':focus': { left: tokens.spacingHorizontalS, top: tokens.spacingVerticalS, zIndex: 100 },
  },
});

/** Sidebar, top bar and the page. */
export function AppShell({ children }: { children: ReactNode }) {
  const s = useStyles();
  return (
    <div className={s.root}>
      <a href="#content" className={s.skip}>
        Skip to content
      </a>
      <Sidebar />
      <div className={s.column}>
        <TopBar />
        <main id="content" className={s.content}>
          {children}
        </main>
      </div>
    </div>
  );
}
