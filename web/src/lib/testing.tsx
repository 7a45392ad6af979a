import type { ReactElement, ReactNode } from 'react';
import { afterEach } from 'vitest';
import { cleanup, render, type RenderResult } from '@testing-library/react';
import { FluentProvider, webLightTheme } from '@fluentui/react-components';
import { Router } from 'wouter';
import { memoryLocation } from 'wouter/memory-location';

// vitest runs without globals, so Testing Library cannot register its own cleanup
afterEach(() => cleanup());

// jsdom lacks these; Fluent's positioning and the virtualiser ask for them
if (typeof window !== 'undefined') {
  window.ResizeObserver ??= class {
    observe() {}
    unobserve() {}
    disconnect() {}
  };
  window.matchMedia ??= ((query: string) => ({
    matches: false,
    media: query,
    onchange: null,
    addListener() {},
    removeListener() {},
    addEventListener() {},
    removeEventListener() {},
    dispatchEvent: () => false,
  })) as typeof window.matchMedia;
  Element.prototype.scrollTo ??= function scrollTo() {};
}

export interface RenderOptions {
  /** The starting URL, query included (`/agents?pageIndex=2`). */
  url?: string;
}

/** Renders inside Fluent and an in-memory router; `location()` reads the current URL (path and query). */
export function renderWithProviders(
  ui: ReactElement,
  { url = '/' }: RenderOptions = {},
): RenderResult & { location: () => string } {
  const [path, search = ''] = url.split('?');
  const memory = memoryLocation({ path, searchPath: search, record: true });
  const wrapper = ({ children }: { children: ReactNode }) => (
    <FluentProvider theme={webLightTheme}>
      <Router hook={memory.hook} searchHook={memory.searchHook}>
        {children}
      </Router>
    </FluentProvider>
  );
  const result = render(ui, { wrapper });
  return { ...result, location: () => memory.history.at(-1) ?? url };
}
