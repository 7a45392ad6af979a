import { expect, type Locator, type Page } from '@playwright/test';
import type { ApiSession } from '../api';

/** /playbooks/runs and /playbooks/runs/{id}. */
export class PlaybookRunsPage {
  readonly table: Locator;
  readonly filters: Locator;
  readonly toolbar: Locator;
  readonly steps: Locator;
  readonly log: Locator;

  constructor(readonly page: Page) {
    this.table = page.getByRole('table', { name: 'Playbook runs' });
    this.filters = page.getByRole('search', { name: 'Playbook run filters' });
    this.toolbar = page.getByRole('toolbar', { name: 'Run actions' });
    this.steps = page.getByRole('list', { name: 'Actions' });
    this.log = page.getByTestId('action-log');
  }

  async gotoList(query = '') {
    await this.page.goto(`/playbooks/runs${query}`);
    await expect(this.filters).toBeVisible({ timeout: 30_000 });
  }

  async open(runId: string) {
    await this.page.goto(`/playbooks/runs/${runId}`);
    await expect(this.toolbar).toBeVisible({ timeout: 30_000 });
  }

  row(text: string | RegExp): Locator {
    return this.table.getByRole('row').filter({ hasText: text });
  }

  async expectRunStatus(status: string, timeout = 30_000) {
    await expect(this.page.getByTestId('run-header').locator('[data-status]').first()).toHaveAttribute('data-status', status, { timeout });
  }

  step(name: string): Locator {
    return this.steps.getByRole('button', { name: new RegExp(`^${name}:`) });
  }

  button(name: string): Locator {
    return this.toolbar.getByRole('button', { name, exact: true });
  }
}

const json = (s: ApiSession) => ({ 'x-csrf-token': s.csrf, 'content-type': 'application/json' });

/** A console playbook as the reference UI writes it (POST /api/db/playbooks, source UI); returns its id. */
export async function createPlaybook(session: ApiSession, title: string, spec: Record<string, unknown>): Promise<string> {
  const res = await session.api.post('/api/db/playbooks', {
    data: { name: title, title, spec, source: 'UI' },
    headers: { ...json(session), prefer: 'return=representation' },
  });
  expect(res.status(), await res.text()).toBe(201);
  const body = await res.json();
  return (Array.isArray(body) ? body[0] : body).id as string;
}

/** Starts a run through POST /api/playbook/run; returns its id. */
export async function startRun(session: ApiSession, playbookId: string, extra: Record<string, unknown> = {}): Promise<string> {
  const res = await session.api.post('/api/playbook/run', { data: { id: playbookId, ...extra }, headers: json(session) });
  expect(res.status(), await res.text()).toBe(201);
  return (await res.json()).run_id as string;
}

/** The run's status as the API answers it. */
export async function runStatus(session: ApiSession, runId: string): Promise<string> {
  const res = await session.api.get(`/api/playbook/run/${runId}`);
  expect(res.status(), await res.text()).toBe(200);
  return (await res.json()).status as string;
}
