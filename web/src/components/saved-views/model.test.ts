import { describe, expect, it } from 'vitest';
import { canDelete, isCurrentView, nameTaken, pathOf, SaveViewForm, viewQuery, viewsForPage, type SavedView } from './model';

const view = (name: string, query: string, created_by: string | null = 'me'): SavedView => ({ id: name, name, description: null, query, created_by });

describe('saved views model', () => {
  it('keeps only the views of exactly this page (the server matched by prefix), by name', () => {
    const views = [
      view('pods', '/catalog?type=Kubernetes::Pod'),
      view('all', '/catalog'),
      view('diffs', '/catalog/changes?changeType=diff'),
      view('open', '/catalog/insights?status=open'),
    ];
    expect(viewsForPage(views, '/catalog').map((v) => v.name)).toEqual(['all', 'pods']);
    expect(viewsForPage(views, '/catalog/changes').map((v) => v.name)).toEqual(['diffs']);
  });

  it('stores the path and the query string, and reads the page back', () => {
    expect(viewQuery('/catalog/changes', 'severity=high&tags=a')).toBe('/catalog/changes?severity=high&tags=a');
    expect(viewQuery('/catalog/changes', '?severity=high')).toBe('/catalog/changes?severity=high');
    expect(viewQuery('/catalog', '')).toBe('/catalog');
    expect(pathOf('/catalog/changes?severity=high')).toBe('/catalog/changes');
    expect(pathOf('/catalog#x')).toBe('/catalog');
  });

  it('marks the view the page shows now, whatever the order of its parameters', () => {
    const v = view('v', '/catalog/changes?severity=high&changeType=diff');
    expect(isCurrentView(v, '/catalog/changes', 'changeType=diff&severity=high')).toBe(true);
    expect(isCurrentView(v, '/catalog/changes', 'changeType=diff')).toBe(false);
    expect(isCurrentView(v, '/catalog', 'changeType=diff&severity=high')).toBe(false);
    expect(isCurrentView(view('all', '/catalog'), '/catalog', '')).toBe(true);
  });

  it("refuses a name the person already used, not someone else's", () => {
    const views = [view('pods', '/catalog', 'me'), view('nodes', '/catalog', 'them')];
    expect(nameTaken(views, ' pods ', 'me')).toBe(true);
    expect(nameTaken(views, 'nodes', 'me')).toBe(false);
  });

  it('lets the creator or an admin delete', () => {
    expect(canDelete(view('a', '/catalog', 'me'), 'me', false)).toBe(true);
    expect(canDelete(view('a', '/catalog', 'them'), 'me', false)).toBe(false);
    expect(canDelete(view('a', '/catalog', 'them'), 'me', true)).toBe(true);
  });

  it('requires a name and trims it', () => {
    const blank = SaveViewForm.safeParse({ name: '   ', description: '' });
    expect(blank.success).toBe(false);
    expect(blank.error?.issues[0].message).toBe('Name is required');
    expect(SaveViewForm.parse({ name: ' pods ', description: ' ' })).toEqual({ name: 'pods', description: '' });
  });
});
