import type { ReactNode } from 'react';
import { Link } from '@fluentui/react-components';
import { useLocation } from 'wouter';

/**
 * A Fluent link that moves within the app without a reload; a modified click (new tab, new window) is left to the
 * browser, which the real `href` serves.
 */
export function RouteLink({ href, children, className }: { href: string; children: ReactNode; className?: string }) {
  const [, navigate] = useLocation();
  return (
    <Link
      href={href}
      className={className}
      onClick={(e) => {
        if (e.metaKey || e.ctrlKey || e.shiftKey || e.button !== 0) return;
        e.preventDefault();
        navigate(href);
      }}
    >
      {children}
    </Link>
  );
}
