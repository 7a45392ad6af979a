import { KubernetesSettings } from '../../features/kubernetes/components/kubernetes-settings';

/** /settings/kubernetes */
export function SettingsKubernetesPage() {
  return <KubernetesSettings />;
}
