import { makeStyles, Text, tokens } from '@fluentui/react-components';
import { Page } from '../../components/page';
import { CodeSection } from '../../components/kit-gallery/code-section';
import { DialogsSection } from '../../components/kit-gallery/dialogs-section';
import { StatusSection } from '../../components/kit-gallery/status-section';
import { TableSection, TableVariantsSection } from '../../components/kit-gallery/table-section';
import { TimeSection } from '../../components/kit-gallery/time-section';

const useStyles = makeStyles({
  root: { display: 'flex', flexDirection: 'column', gap: tokens.spacingVerticalXL, paddingBottom: tokens.spacingVerticalXXXL },
  intro: { color: tokens.colorNeutralForeground3, maxWidth: '760px' },
  columns: { display: 'grid', gridTemplateColumns: 'repeat(auto-fit, minmax(480px, 1fr))', gap: tokens.spacingVerticalXL },
});

/** /__kit: every shared component with sample data, for screenshots and browser tests. */
export function KitGalleryPage() {
  const s = useStyles();
  return (
    <Page title="UI kit">
      <div className={s.root}>
        <Text className={s.intro}>
          The shared components every screen is built from, one of each, with sample data. Nothing here talks to the server.
        </Text>
        <div className={s.columns}>
          <TimeSection />
          <DialogsSection />
        </div>
        <TableSection />
        <TableVariantsSection />
        <StatusSection />
        <CodeSection />
      </div>
    </Page>
  );
}
