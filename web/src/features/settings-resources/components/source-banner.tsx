import { Link } from 'wouter';
import { Link as FluentLink, MessageBar, MessageBarBody, MessageBarTitle } from '@fluentui/react-components';
import { useAgentName } from '../api';
import type { SourceLinkState } from '../source-link';

/** Where a row comes from (spec 001 §4 "Source link rules"); nothing for rows made here. */
export function SourceBanner({ link, singular }: { link: SourceLinkState; singular: string }) {
  const agent = useAgentName(link.kind === 'agent' ? link.agentId : null);
  if (link.kind === 'editable') return null;
  const what = singular.toLowerCase();
  if (link.kind === 'link' && /^kubernetes/i.test(link.source)) {
    return (
      <MessageBar intent="info">
        <MessageBarBody>
          <MessageBarTitle>
            {link.href ? (
              <Link href={link.href} asChild>
                <FluentLink href={link.href}>{link.source}</FluentLink>
              </Link>
            ) : (
              link.source
            )}
          </MessageBarTitle>
          This {what} comes from a custom resource: saving here updates the resource in the cluster.
        </MessageBarBody>
      </MessageBar>
    );
  }
  if (link.kind === 'gitops') {
    return (
      <MessageBar intent="info">
        <MessageBarBody>
          <MessageBarTitle>Linked to {link.link}</MessageBarTitle>
          This {what} comes from a custom resource managed by GitOps: change it in its source repository.
        </MessageBarBody>
      </MessageBar>
    );
  }
  const title =
    link.kind === 'agent'
      ? `Linked to ${agent.data ?? link.agentId}`
      : link.kind === 'localFile'
        ? 'Linked to local file'
        : link.kind === 'link' && link.href
          ? null
          : `Linked to ${link.source}`;
  return (
    <MessageBar intent="info">
      <MessageBarBody>
        <MessageBarTitle>
          {title ??
            (link.kind === 'link' && link.href && (
              <>
                Linked to{' '}
                <Link href={link.href} asChild>
                  <FluentLink href={link.href}>{link.source}</FluentLink>
                </Link>
              </>
            ))}
        </MessageBarTitle>
        This {what} is managed by its source; edit it there.
      </MessageBarBody>
    </MessageBar>
  );
}
