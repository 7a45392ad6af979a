import { expect, test } from '@playwright/test';
import type pg from 'pg';
import { adminApi, type ApiSession } from './api';
import { e2eDatabase } from './catalog-seed';
import { seriousViolations } from './pages/axe';
import { signInSession } from './pages/sign-in';
import { TopologyPage } from './pages/topology-page';
import { seedTopologyCards, type SeededTopology } from './topology-seed';

const shots = (name: string) => `.tmp/screenshots/topology-${name}.png`;
const u = Date.now().toString(36);

// each test signs in and loads the lazy page; on a machine shared by eight builds a first load can take 10-40 s
test.describe.configure({ timeout: 150_000 });
const LOAD = { timeout: 45_000 };

let admin: ApiSession;
let db: pg.Client;
let seeded: SeededTopology;

test.beforeAll(async () => {
  test.setTimeout(60_000);
  admin = await adminApi();
  db = await e2eDatabase(admin);
  seeded = await seedTopologyCards(db, u);
});

test.afterAll(async () => {
  await db?.end();
  await admin?.api.dispose();
});

test('/ goes to the topology, the Dashboard entry leads there, and a card zooms in with the breadcrumb', async ({ page }) => {
  await signInSession(page);
  await page.goto('/');
  await expect(page).toHaveURL(/\/topology$/, LOAD);
  await expect(page.getByRole('navigation').getByRole('link', { name: 'Dashboard' }).first()).toHaveAttribute('href', '/topology');

  const topology = new TopologyPage(page);
  await topology.goto(`/topology?labels=e2e=${u}`);
  await expect(topology.card(`shop-${u}`)).toBeVisible(LOAD);
  await topology.menu(`shop-${u}`, 'Zoom In');
  await expect(page).toHaveURL(new RegExp(`/topology/${seeded.rootId}$`));
  await expect(topology.card(`checkout-${u}`)).toBeVisible(LOAD);
  await expect(topology.breadcrumb.getByRole('link', { name: 'Dashboard' })).toBeVisible();
  await expect(topology.breadcrumb.getByText(`shop-${u}`)).toBeVisible();
  // the children as cards: warning first (orange border), hidden ones left out until asked
  await expect(topology.card(`payments-${u}`)).toHaveAttribute('data-health', 'orange');
  await expect(topology.card(`old-${u}`)).toHaveCount(0);
  await page.screenshot({ path: shots('zoomed'), fullPage: true });

  // a card's name zooms one level further; the breadcrumb then links back to its parent
  await topology.card(`checkout-${u}`).getByRole('link', { name: `checkout-${u}` }).click();
  await expect(page).toHaveURL(new RegExp(`/topology/${seeded.checkoutId}`));
  await expect(topology.breadcrumb.getByRole('link', { name: `shop-${u}` })).toBeVisible(LOAD);
});

test('filters live in the URL, and "Show hidden components" brings hidden ones back', async ({ page }) => {
  await signInSession(page);
  const topology = new TopologyPage(page);
  await topology.goto(`/topology/${seeded.rootId}`);
  await expect(topology.card(`store-${u}`)).toBeVisible(LOAD);

  await topology.choose('Health', 'warning');
  await expect(page).toHaveURL(/status=warning/);
  await expect(topology.card(`payments-${u}`)).toBeVisible();
  await expect(topology.card(`store-${u}`)).toHaveCount(0);

  // a shared link restores the filter
  await page.reload();
  await expect(topology.filters.getByRole('combobox', { name: 'Health' })).toHaveText('warning', LOAD);
  await expect(topology.card(`store-${u}`)).toHaveCount(0);
  await topology.choose('Health', 'All');
  await expect(page).not.toHaveURL(/status=/);

  await topology.choose('Type', 'Database');
  await expect(page).toHaveURL(/type=Database/);
  await expect(topology.card(`store-${u}`)).toBeVisible();
  await expect(topology.card(`checkout-${u}`)).toHaveCount(0);
  await expect(topology.card(`store-${u}`).getByText('$1.5k')).toBeVisible();
  await topology.choose('Type', 'All');

  await topology.filters.getByRole('switch', { name: 'Show hidden components' }).check();
  await expect(page).toHaveURL(/showHidden=true/);
  await expect(topology.card(`old-${u}`)).toBeVisible();
});

test('the card width slider keeps its width over a reload, and narrow cards show headline metrics only', async ({ page }) => {
  await signInSession(page);
  const topology = new TopologyPage(page);
  await topology.goto(`/topology/${seeded.rootId}`);
  const card = topology.card(`checkout-${u}`);
  await expect(card).toBeVisible(LOAD);
  // the large card lists the properties (six, then "Show 1 more")
  await expect(card.getByRole('button', { name: 'Show 1 more' })).toBeVisible();
  const before = (await card.boundingBox())!.width;

  await topology.widthSlider.focus();
  await page.keyboard.press('Home'); // the minimum, 250 px
  await expect(topology.filters.getByText('Card width (250 px)')).toBeVisible();
  // the grid follows the slider in a deferred render, which may be mounting the card at the moment asked
  await expect.poll(async () => (await card.boundingBox())?.width ?? Infinity).toBeLessThan(before);
  await expect(card.getByRole('button', { name: 'Show 1 more' })).toHaveCount(0);
  await expect(card.getByText('80%')).toBeVisible();

  await page.reload();
  await expect(topology.filters.getByText('Card width (250 px)')).toBeVisible(LOAD);
  await expect.poll(async () => (await topology.card(`checkout-${u}`).boundingBox())?.width ?? 0).toBe(250);
  await page.screenshot({ path: shots('narrow'), fullPage: true });
  await topology.widthSlider.focus();
  await page.keyboard.press('End');
  await expect(topology.filters.getByText('Card width (768 px)')).toBeVisible();
});

test('a failing check turns its card red while the page is open', async ({ page }) => {
  await signInSession(page);
  const topology = new TopologyPage(page);
  await topology.goto(`/topology/${seeded.rootId}`);
  const card = topology.card(`checkout-${u}`);
  await expect(card).toBeVisible(LOAD);
  await expect(card).toHaveAttribute('data-health', 'none');
  await db.query(`UPDATE checks SET status = 'unhealthy' WHERE id = $1`, [seeded.checkId]);
  // the roll-up announces the component on the live channel; the page refetches without a reload
  await expect(card).toHaveAttribute('data-health', 'red');
  await expect(card.locator('a[href="/health?status=unhealthy"]')).toHaveText('1 unhealthy');
  await db.query(`UPDATE checks SET status = 'healthy' WHERE id = $1`, [seeded.checkId]);
  await expect(card).toHaveAttribute('data-health', 'none');
});

test('the embedded card stands alone; an unknown id says so; the page has no serious axe findings', async ({ page }) => {
  await signInSession(page);
  await page.goto(`/view/topology/${seeded.checkoutId}`);
  await expect(page.getByRole('article', { name: `checkout-${u}` })).toBeVisible(LOAD);
  await expect(page.getByRole('button', { name: `Actions for checkout-${u}` })).toHaveCount(0);
  // no shell around it: no sidebar navigation, no top bar
  await expect(page.getByRole('navigation')).toHaveCount(0);
  await page.screenshot({ path: shots('embed') });
  await page.goto('/view/topology/00000000-0000-4000-8000-00000000dead');
  await expect(page.getByText('Component not found')).toBeVisible(LOAD);

  const topology = new TopologyPage(page);
  await topology.goto(`/topology/${seeded.rootId}`);
  await expect(topology.card(`checkout-${u}`)).toBeVisible(LOAD);
  expect(await seriousViolations(page)).toEqual([]);

  // a page of the same origin embeds the card (the console's own pages refuse any framing)
  await page.evaluate((src) => {
    const frame = document.createElement('iframe');
    frame.src = src;
    frame.title = 'Embedded card';
    frame.style.cssText = 'width:600px;height:400px';
    document.body.append(frame);
  }, `/view/topology/${seeded.checkoutId}`);
  await expect(
    page.frameLocator('iframe[title="Embedded card"]').getByRole('article', { name: `checkout-${u}` }),
  ).toBeVisible(LOAD);
});
