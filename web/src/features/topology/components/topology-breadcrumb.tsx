import { Fragment } from 'react';
import { Breadcrumb, BreadcrumbButton, BreadcrumbDivider, BreadcrumbItem } from '@fluentui/react-components';
import { useLocation } from 'wouter';
import type { TopologyComponent } from '@contracts/topology';
import { useComponentNames } from '../api';
import { ancestorIds, componentHref, href } from '../model';

/** Dashboard › the ancestors (from `path`, then the selector parent it was reached through) › the component. */
export function TopologyBreadcrumb({ component, refererId, search }: {
  component?: TopologyComponent;
  refererId?: string;
  /** The filters to keep on every crumb (without refererId). */
  search: Record<string, string>;
}) {
  const [, navigate] = useLocation();
  const ids = component ? ancestorIds(component as TopologyComponent & { path?: unknown }, refererId) : [];
  const names = useComponentNames(ids);
  const nameOf = (id: string) => names.data?.find((n) => n.id === id)?.name ?? '…';
  const crumb = (href: string, label: string) => (
    <BreadcrumbButton as="a" href={href} onClick={(e) => { e.preventDefault(); navigate(href); }}>{label}</BreadcrumbButton>
  );
  return (
    <Breadcrumb aria-label="Breadcrumb" size="large">
      <BreadcrumbItem>
        {component ? crumb(href('/topology', search), 'Dashboard') : <BreadcrumbButton current>Dashboard</BreadcrumbButton>}
      </BreadcrumbItem>
      {ids.map((id) => (
        <Fragment key={id}>
          <BreadcrumbDivider />
          <BreadcrumbItem>{crumb(componentHref(id, search), nameOf(id))}</BreadcrumbItem>
        </Fragment>
      ))}
      {component && (
        <>
          <BreadcrumbDivider />
          <BreadcrumbItem>
            <BreadcrumbButton current>{component.text || component.name}</BreadcrumbButton>
          </BreadcrumbItem>
        </>
      )}
    </Breadcrumb>
  );
}
