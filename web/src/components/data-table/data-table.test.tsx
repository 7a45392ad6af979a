// @vitest-environment jsdom
import { describe, expect, it, vi } from 'vitest';
import { screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { renderWithProviders } from '../../lib/testing';
import { dataTableColumns } from './columns';
import { DataTable, enteringRows, rowsInView } from './data-table';

type Agent = { id: string; name: string; checks: number; team: string };

const col = dataTableColumns<Agent>();
const columns = [
  col.accessor('name', { header: 'Name' }),
  col.accessor('checks', { header: 'Checks', meta: { align: 'end' } }),
  col.accessor('team', { header: 'Team' }),
];

function makeAgents(n: number): Agent[] {
  return Array.from({ length: n }, (_, i) => ({
    id: `a${i}`,
    name: `agent-${String(i).padStart(5, '0')}`,
    checks: (i * 7) % 13,
    team: ['red', 'blue', 'green'][i % 3],
  }));
}

const bodyRows = () => within(screen.getByRole('table')).getAllByRole('row').slice(1);
const firstColumn = () => bodyRows().map((r) => within(r).getAllByRole('cell')[0].textContent);

describe('DataTable', () => {
  it('says "No data available" when there are no rows', () => {
    renderWithProviders(<DataTable label="Agents" columns={columns} data={[]} />);
    expect(screen.getByText('No data available')).toBeTruthy();
  });

  it('shows a spinner instead of the empty text while loading', () => {
    renderWithProviders(<DataTable label="Agents" columns={columns} data={[]} loading />);
    expect(screen.queryByText('No data available')).toBeNull();
    expect(screen.getByText('Loading…')).toBeTruthy();
  });

  it('sorts by a header click, marks aria-sort and writes sortBy/sortOrder to the URL', async () => {
    const user = userEvent.setup();
    const data = [
      { id: '1', name: 'bravo', checks: 2, team: 'x' },
      { id: '2', name: 'alpha', checks: 9, team: 'y' },
      { id: '3', name: 'charlie', checks: 5, team: 'z' },
    ];
    const view = renderWithProviders(<DataTable label="Agents" columns={columns} data={data} />, { url: '/agents' });
    expect(firstColumn()).toEqual(['bravo', 'alpha', 'charlie']);

    const header = screen.getByRole('columnheader', { name: /Name/ });
    expect(header.getAttribute('aria-sort')).toBe('none');
    await user.click(within(header).getByRole('button'));
    expect(firstColumn()).toEqual(['alpha', 'bravo', 'charlie']);
    expect(header.getAttribute('aria-sort')).toBe('ascending');
    expect(view.location()).toBe('/agents?sortBy=name');

    await user.click(within(header).getByRole('button'));
    expect(firstColumn()).toEqual(['charlie', 'bravo', 'alpha']);
    expect(view.location()).toBe('/agents?sortBy=name&sortOrder=desc');
  });

  describe('with sortDirectionParam="sortDesc" (the health dashboard)', () => {
    const data = [
      { id: '1', name: 'bravo', checks: 2, team: 'x' },
      { id: '2', name: 'alpha', checks: 9, team: 'y' },
      { id: '3', name: 'charlie', checks: 5, team: 'z' },
    ];

    it('writes the direction as sortDesc=true, leaving the default direction out', async () => {
      const user = userEvent.setup();
      const view = renderWithProviders(<DataTable label="Agents" columns={columns} data={data} sortDirectionParam="sortDesc" />, {
        url: '/health',
      });
      const header = screen.getByRole('columnheader', { name: /Name/ });
      await user.click(within(header).getByRole('button'));
      expect(firstColumn()).toEqual(['alpha', 'bravo', 'charlie']);
      expect(view.location()).toBe('/health?sortBy=name');
      await user.click(within(header).getByRole('button'));
      expect(firstColumn()).toEqual(['charlie', 'bravo', 'alpha']);
      expect(header.getAttribute('aria-sort')).toBe('descending');
      expect(view.location()).toBe('/health?sortBy=name&sortDesc=true');
    });

    it('restores sortDesc=true and sortDesc=false from a link', () => {
      const view = renderWithProviders(
        <DataTable label="Agents" columns={columns} data={data} sortDirectionParam="sortDesc" />,
        { url: '/health?sortBy=checks&sortDesc=true' },
      );
      expect(firstColumn()).toEqual(['alpha', 'charlie', 'bravo']);
      view.unmount();
      // a default sort that is descending: sortDesc=false asks for ascending
      renderWithProviders(
        <DataTable label="Agents" columns={columns} data={data} sortDirectionParam="sortDesc" defaultSort={{ id: 'checks', desc: true }} />,
        { url: '/health?sortDesc=false' },
      );
      expect(firstColumn()).toEqual(['bravo', 'charlie', 'alpha']);
    });

    it('still reads an old sortOrder link, and the next sort change drops it for sortDesc', async () => {
      const user = userEvent.setup();
      const view = renderWithProviders(
        <DataTable label="Agents" columns={columns} data={data} sortDirectionParam="sortDesc" defaultSort={{ id: 'name' }} />,
        { url: '/health?sortBy=name&sortOrder=desc' },
      );
      expect(firstColumn()).toEqual(['charlie', 'bravo', 'alpha']);
      const checks = screen.getByRole('columnheader', { name: /Checks/ });
      await user.click(within(checks).getByRole('button'));
      expect(firstColumn()).toEqual(['bravo', 'charlie', 'alpha']);
      expect(view.location()).toBe('/health?sortBy=checks');
      await user.click(within(checks).getByRole('button'));
      expect(view.location()).toBe('/health?sortBy=checks&sortDesc=true');
    });

    it('sortDesc wins over an old sortOrder in the same link', () => {
      renderWithProviders(<DataTable label="Agents" columns={columns} data={data} sortDirectionParam="sortDesc" />, {
        url: '/health?sortBy=name&sortOrder=desc&sortDesc=false',
      });
      expect(firstColumn()).toEqual(['alpha', 'bravo', 'charlie']);
    });
  });

  it('other tables keep sortOrder and ignore sortDesc', () => {
    const data = [
      { id: '1', name: 'bravo', checks: 2, team: 'x' },
      { id: '2', name: 'alpha', checks: 9, team: 'y' },
    ];
    renderWithProviders(<DataTable label="Agents" columns={columns} data={data} />, { url: '/agents?sortBy=name&sortDesc=true' });
    expect(firstColumn()).toEqual(['alpha', 'bravo']);
  });

  it('sorts from the keyboard', async () => {
    const user = userEvent.setup();
    const data = [
      { id: '1', name: 'b', checks: 2, team: 'x' },
      { id: '2', name: 'a', checks: 9, team: 'y' },
    ];
    renderWithProviders(<DataTable label="Agents" columns={columns} data={data} />);
    within(screen.getByRole('columnheader', { name: /Checks/ })).getByRole('button').focus();
    await user.keyboard('{Enter}');
    expect(firstColumn()).toEqual(['b', 'a']);
    expect(screen.getByRole('columnheader', { name: /Checks/ }).getAttribute('aria-sort')).toBe('ascending');
  });

  it('restores sort and page from a shared URL', async () => {
    renderWithProviders(<DataTable label="Agents" columns={columns} data={makeAgents(30)} />, {
      url: '/agents?sortBy=name&sortOrder=desc&pageIndex=1&pageSize=10',
    });
    // the pagination bar loads with the first paged table
    expect(await screen.findByText('Page 2 of 3')).toBeTruthy();
    expect(firstColumn()[0]).toBe('agent-00019');
  });

  it('pages with first/previous/next/last and go-to-page, and writes pageIndex to the URL', async () => {
    const user = userEvent.setup();
    const view = renderWithProviders(<DataTable label="Agents" columns={columns} data={makeAgents(23)} defaultPageSize={5} />, {
      url: '/agents',
    });
    expect(await screen.findByText('Page 1 of 5')).toBeTruthy();
    expect(bodyRows()).toHaveLength(5);
    expect((screen.getByRole('button', { name: 'Previous page' }) as HTMLButtonElement).disabled).toBe(true);

    await user.click(screen.getByRole('button', { name: 'Next page' }));
    expect(screen.getByText('Page 2 of 5')).toBeTruthy();
    expect(firstColumn()[0]).toBe('agent-00005');
    expect(view.location()).toBe('/agents?pageIndex=1');

    await user.click(screen.getByRole('button', { name: 'Last page' }));
    expect(screen.getByText('Page 5 of 5')).toBeTruthy();
    expect(bodyRows()).toHaveLength(3);
    expect((screen.getByRole('button', { name: 'Next page' }) as HTMLButtonElement).disabled).toBe(true);

    await user.click(screen.getByRole('button', { name: 'First page' }));
    expect(screen.getByText('Page 1 of 5')).toBeTruthy();
    expect(view.location()).toBe('/agents');

    const goTo = screen.getByLabelText('Go to page');
    expect(goTo.getAttribute('min')).toBe('1');
    await user.clear(goTo);
    await user.type(goTo, '3{Enter}');
    expect(screen.getByText('Page 3 of 5')).toBeTruthy();
    expect(firstColumn()[0]).toBe('agent-00010');

    await user.click(screen.getByRole('button', { name: 'Previous page' }));
    expect(screen.getByText('Page 2 of 5')).toBeTruthy();
  });

  it('offers the spec page sizes, or the narrowed list, and a new size goes back to page 1', async () => {
    const user = userEvent.setup();
    const view = renderWithProviders(<DataTable label="Agents" columns={columns} data={makeAgents(120)} />, {
      url: '/a?pageIndex=1',
    });
    const select = (await screen.findByLabelText('Rows per page')) as HTMLSelectElement;
    expect([...select.options].map((o) => Number(o.value))).toEqual([5, 10, 25, 50, 100, 150, 200, 250, 300, 500, 1000]);
    await user.selectOptions(select, '100');
    expect(view.location()).toBe('/a?pageSize=100');
    expect(screen.getByText('Page 1 of 2')).toBeTruthy();
    view.unmount();

    renderWithProviders(
      <DataTable label="Agents" columns={columns} data={makeAgents(3)} pageSizes={[50, 100, 200]} defaultPageSize={50} />,
    );
    const narrowed = (await screen.findByLabelText('Rows per page')) as HTMLSelectElement;
    expect([...narrowed.options].map((o) => o.value)).toEqual(['50', '100', '200']);
  });

  it('server mode shows the given page as is and counts pages from total', async () => {
    const user = userEvent.setup();
    const view = renderWithProviders(
      <DataTable label="Agents" columns={columns} data={makeAgents(3)} manual total={250} defaultPageSize={50} />,
      { url: '/agents' },
    );
    expect(await screen.findByText('Page 1 of 5')).toBeTruthy();
    expect(bodyRows()).toHaveLength(3);
    await user.click(within(screen.getByRole('columnheader', { name: /Name/ })).getByRole('button'));
    // the server sorts: the rows stay in the order given, the URL asks for the new order
    expect(firstColumn()).toEqual(['agent-00000', 'agent-00001', 'agent-00002']);
    expect(view.location()).toBe('/agents?sortBy=name');
  });

  it('groups rows with a count and expands a group on click', async () => {
    const user = userEvent.setup();
    renderWithProviders(
      <DataTable label="Agents" columns={columns} data={makeAgents(7)} groupBy={['team']} urlState={false} />,
    );
    const groups = bodyRows();
    expect(groups).toHaveLength(3);
    expect(groups.map((r) => r.textContent)).toEqual(['red3', 'blue2', 'green2']);
    expect(within(groups[0]).getByLabelText('3 rows')).toBeTruthy();

    await user.click(within(groups[0]).getByRole('button', { name: 'Expand row' }));
    expect(bodyRows()).toHaveLength(6);
    expect(firstColumn().slice(1, 4)).toEqual(['agent-00000', 'agent-00003', 'agent-00006']);
    await user.click(within(bodyRows()[0]).getByRole('button', { name: 'Collapse row' }));
    expect(bodyRows()).toHaveLength(3);
  });

  it('opens a detail panel under an expanded row', async () => {
    const user = userEvent.setup();
    renderWithProviders(
      <DataTable
        label="Agents"
        columns={columns}
        data={makeAgents(2)}
        urlState={false}
        renderDetail={(a) => <p>Details of {a.name}</p>}
      />,
    );
    await user.click(within(bodyRows()[0]).getByRole('button', { name: 'Expand row' }));
    expect(screen.getByText('Details of agent-00000')).toBeTruthy();
  });

  it('calls onRowClick on click and on Enter, but not for buttons inside the row', async () => {
    const user = userEvent.setup();
    const onRowClick = vi.fn();
    const withButton = [
      ...columns,
      col.display({ id: 'actions', header: 'Actions', cell: () => <button type="button">Edit</button> }),
    ];
    renderWithProviders(
      <DataTable label="Agents" columns={withButton} data={makeAgents(2)} onRowClick={onRowClick} urlState={false} />,
    );
    await user.click(screen.getByText('agent-00001'));
    expect(onRowClick).toHaveBeenLastCalledWith(expect.objectContaining({ id: 'a1' }));
    bodyRows()[0].focus();
    await user.keyboard('{Enter}');
    expect(onRowClick).toHaveBeenLastCalledWith(expect.objectContaining({ id: 'a0' }));
    onRowClick.mockClear();
    await user.click(screen.getAllByRole('button', { name: 'Edit' })[0]);
    expect(onRowClick).not.toHaveBeenCalled();
  });

  it('renders only a window of rows for 10,000 rows', () => {
    const data = makeAgents(10_000);
    renderWithProviders(<DataTable label="Agents" columns={columns} data={data} paginate={false} urlState={false} />);
    const rendered = bodyRows().filter((r) => r.getAttribute('aria-hidden') !== 'true');
    expect(rendered.length).toBeGreaterThan(0);
    expect(rendered.length).toBeLessThan(100);
    expect(firstColumn()[0]).toBe('agent-00000');
  });

  it('counts the rows a new window brings in (a few: shown at once; most of a window: deferred)', () => {
    const range = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => ({ index: from + i }));
    expect(enteringRows(range(3, 40), range(0, 37))).toBe(3);
    expect(enteringRows(range(0, 37), range(3, 40))).toBe(3);
    expect(enteringRows(range(100, 137), range(0, 37))).toBe(38);
    expect(enteringRows(range(0, 37), range(0, 37))).toBe(0);
    expect(enteringRows(range(0, 27), [])).toBe(0);
  });

  it('keeps the rows in view (and two rows of margin) of a window, for a jump still scrolling', () => {
    // 35 px rows 100..137 with overscan; the viewport shows 3,600..4,200 px (rows 102..120)
    const items = Array.from({ length: 38 }, (_, i) => ({ index: 100 + i, start: (100 + i) * 35, end: (101 + i) * 35 }));
    const shown = rowsInView(items, 3_600, 600).map((v) => v.index);
    expect(shown[0]).toBe(100);
    expect(shown.at(-1)).toBe(121);
    expect(rowsInView(items, 3_500, 38 * 35)).toEqual(items);
  });
});
