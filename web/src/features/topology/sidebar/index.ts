export { TopologySidebar, type TopologySidebarProps } from './topology-sidebar';
export { refreshSidebar } from '../api-sidebar';
