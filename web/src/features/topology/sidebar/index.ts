export { TopologySidebar, type TopologySidebarProps } from './topology-sidebar';
