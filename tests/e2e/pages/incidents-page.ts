import { expect, type Locator, type Page } from '@playwright/test';
import type { ApiSession } from '../api';

/** /incidents and /incidents/{id}. */
export class IncidentsPage {
  readonly table: Locator;
  readonly dialog: Locator;
  readonly createButton: Locator;
  readonly side: Locator;

  constructor(readonly page: Page) {
    this.table = page.getByRole('table', { name: 'Incidents' });
    this.dialog = page.getByRole('dialog');
    this.createButton = page.getByRole('button', { name: 'Create Incident' });
    this.side = page.getByRole('complementary', { name: 'Incident details' });
  }

  async goto(query = '') {
    await this.page.goto(`/incidents${query}`);
    await expect(this.page.getByRole('search', { name: 'Incident filters' })).toBeVisible();
  }

  async open(id: string, query = '') {
    await this.page.goto(`/incidents/${id}${query}`);
    await expect(this.page.getByRole('navigation', { name: 'Breadcrumb' })).toBeVisible();
  }

  row(text: string | RegExp): Locator {
    return this.table.getByRole('row').filter({ hasText: text });
  }

  statusDropdown(): Locator {
    return this.page.getByRole('combobox', { name: 'Incident status' });
  }

  async chooseStatus(label: string) {
    await this.statusDropdown().click();
    await this.page.getByRole('option', { name: label, exact: true }).click();
  }

  tab(name: 'Comments' | 'Action Plan'): Locator {
    return this.page.getByRole('tab', { name: new RegExp(`^${name}`) });
  }

  hypothesis(title: string): Locator {
    return this.page.getByRole('listitem', { name: new RegExp(`: ${title}$`) });
  }

  async hypothesisAction(title: string, action: string) {
    await this.page.getByRole('button', { name: `Actions for ${title}`, exact: true }).click();
    await this.page.getByRole('menuitem', { name: action }).click();
  }

  changelog(): Locator {
    return this.side.getByRole('list', { name: 'Changelog' });
  }
}

const headers = (s: ApiSession) => ({ 'x-csrf-token': s.csrf, prefer: 'return=representation' });

/** Seeds through /api/db as the web does: the incident, its root hypothesis, and evidences on it. */
export async function seedIncident(
  s: ApiSession,
  title: string,
  evidences: Record<string, unknown>[] = [],
  extra: Record<string, unknown> = {},
): Promise<{ id: string; incident_id: string; rootId: string; evidenceIds: string[] }> {
  const me = (await (await s.api.get('/api/auth/whoami')).json()).payload.user.id as string;
  const inc = await s.api.post('/api/db/incidents?select=id,incident_id', {
    headers: headers(s),
    data: { title, description: 'Seeded by the e2e suite', severity: 'high', type: 'availability', status: 'open', created_by: me, commander_id: me, ...extra },
  });
  expect(inc.status(), await inc.text()).toBe(201);
  const [incident] = await inc.json();
  const hyp = await s.api.post('/api/db/hypotheses?select=id', {
    headers: headers(s),
    data: { incident_id: incident.id, title, type: 'root', status: 'possible', created_by: me },
  });
  expect(hyp.status(), await hyp.text()).toBe(201);
  const [root] = await hyp.json();
  const evidenceIds: string[] = [];
  for (const e of evidences) {
    const res = await s.api.post('/api/db/evidences?select=id', { headers: headers(s), data: { hypothesis_id: root.id, created_by: me, ...e } });
    expect(res.status(), await res.text()).toBe(201);
    evidenceIds.push((await res.json())[0].id);
  }
  return { id: incident.id, incident_id: incident.incident_id, rootId: root.id, evidenceIds };
}

export async function dbGet<T = Record<string, unknown>>(s: ApiSession, path: string): Promise<T[]> {
  const res = await s.api.get(`/api/db/${path}`);
  expect(res.status(), await res.text()).toBe(200);
  return res.json();
}
