import type pg from 'pg';
import { BadRequestError, ForbiddenError, NotFoundError } from '../../lib/errors.js';
import { notifyChange } from '../../lib/events.js';
import type { RelationWriter } from '../db/writers.js';
import { deleteRow, insertRow, keepMaskedServices, liveRow, updateRow, RULE_COLUMNS, SILENCE_COLUMNS } from './queries.js';
import { parseTimeExpr } from './silences/date-math.js';
import type { Problem } from './types.js';
import { durationNs, validateRule, validateSilence } from './validate.js';
import { readOnlyReason } from './cr/read-only.js';

/**
 * /api/db writes of notifications and notification_silences (registry `write.writer`): the whole row (a PATCH merged
 * with the stored one) passes validateRule / validateSilence (400 naming each path, nothing stored); rows of a custom
 * resource or GitOps (source other than UI) are read-only here (403 naming the source); URL credentials written back
 * as `***` keep the stored value; a delete is a soft delete.
 */

type Row = Record<string, unknown>;

/** A 400 whose message names the first path and whose details hold every path's message. */
export function problemsError(what: string, problems: Problem[]): BadRequestError {
  const details: Record<string, string> = {};
  for (const p of problems) details[p.path] ??= p.message;
  return new BadRequestError(`invalid ${what}: ${problems[0].path}: ${problems[0].message}`, details);
}

/** Columns a body may carry that change nothing (the reference UI resends the row it read). */
const IGNORED = ['id', 'created_at', 'updated_at', 'created_by', 'error', 'error_at', 'source', 'spec'];

function refuseSource(what: string, row: Row): void {
  const reason = readOnlyReason(what, row);
  if (reason) throw new ForbiddenError(reason, { source: row.source });
}

function refuseGivenSource(body: Row): void {
  if (body.source !== undefined && body.source !== null && body.source !== 'UI') {
    throw new BadRequestError(`source: a row written here has source 'UI'; '${String(body.source).slice(0, 60)}' cannot be set`, { source: 'must be UI' });
  }
}

/** wait_for and other durations written as text (`5m`) stored as nanoseconds. */
export function normalizeRule(row: Row): Row {
  const out = { ...row };
  for (const c of ['wait_for', 'group_by_interval', 'fallback_delay', 'wait_for_eval_period']) {
    if (typeof out[c] === 'string') {
      const ns = durationNs(out[c]);
      if (ns !== null) out[c] = ns;
    }
  }
  return out;
}

/** from/until as date math (`now+2h`) resolved; `indefinitely` as no end. */
export function normalizeSilence(row: Row, now = new Date()): Row {
  const out = { ...row };
  if (out.until === 'indefinitely') out.until = null;
  for (const c of ['from', 'until']) {
    if (typeof out[c] === 'string' && out[c]) {
      const t = parseTimeExpr(out[c] as string, now);
      if (t) out[c] = t;
    }
  }
  return out;
}

export function ruleWriter(db: pg.Pool): RelationWriter {
  const insertable = [...RULE_COLUMNS, 'id', 'created_by', 'source'];
  return {
    insertColumns: insertable,
    updateColumns: [...RULE_COLUMNS, ...IGNORED],
    async create(body) {
      refuseGivenSource(body);
      const row = normalizeRule(body);
      const problems = await validateRule(db, { name: row.name ?? '', ...row });
      if (problems.length) throw problemsError('notification', problems);
      const id = await insertRow(db, 'notifications', pick(row, [...RULE_COLUMNS, 'id', 'created_by']));
      await notifyChange(db, { relation: 'notifications', ids: [id] });
      return id;
    },
    async update(id, patch) {
      const stored = await liveRow(db, 'notifications', id);
      if (!stored) throw new NotFoundError('notification', id);
      refuseSource('notification', stored);
      const change = normalizeRule(pick(patch, RULE_COLUMNS));
      for (const c of ['custom_services', 'fallback_custom_services'] as const) {
        if (c in change) change[c] = await keepMaskedServices(db, change[c], stored[c]);
      }
      if (!Object.keys(change).length) return;
      const problems = await validateRule(db, { ...stored, ...change });
      if (problems.length) throw problemsError('notification', problems);
      // a changed rule is tried again (a paused rule's error cleared), as the reference does on edit
      await updateRow(db, 'notifications', id, { ...change, error: null, error_at: null });
      await notifyChange(db, { relation: 'notifications', ids: [id] });
    },
    async remove(id) {
      const stored = await liveRow(db, 'notifications', id);
      if (!stored) throw new NotFoundError('notification', id);
      refuseSource('notification', stored);
      await deleteRow(db, 'notifications', id);
      await notifyChange(db, { relation: 'notifications', ids: [id] });
    },
  };
}

export function silenceWriter(db: pg.Pool): RelationWriter {
  return {
    insertColumns: [...SILENCE_COLUMNS, 'id', 'created_by', 'source'],
    updateColumns: [...SILENCE_COLUMNS, ...IGNORED],
    async create(body) {
      refuseGivenSource(body);
      const row = normalizeSilence(body);
      const problems = await validateSilence(db, row);
      if (problems.length) throw problemsError('notification silence', problems);
      const id = await insertRow(db, 'notification_silences', pick({ from: new Date(), ...row }, [...SILENCE_COLUMNS, 'id', 'created_by']));
      await notifyChange(db, { relation: 'notification_silences', ids: [id] });
      return id;
    },
    async update(id, patch) {
      const stored = await liveRow(db, 'notification_silences', id);
      if (!stored) throw new NotFoundError('notification silence', id);
      refuseSource('notification silence', stored);
      const change = normalizeSilence(pick(patch, SILENCE_COLUMNS));
      if (!Object.keys(change).length) return;
      const problems = await validateSilence(db, { ...stored, ...change });
      if (problems.length) throw problemsError('notification silence', problems);
      await updateRow(db, 'notification_silences', id, change);
      await notifyChange(db, { relation: 'notification_silences', ids: [id] });
    },
    async remove(id) {
      const stored = await liveRow(db, 'notification_silences', id);
      if (!stored) throw new NotFoundError('notification silence', id);
      refuseSource('notification silence', stored);
      await deleteRow(db, 'notification_silences', id);
      await notifyChange(db, { relation: 'notification_silences', ids: [id] });
    },
  };
}

function pick(row: Row, columns: readonly string[]): Row {
  return Object.fromEntries(Object.entries(row).filter(([k, v]) => columns.includes(k) && v !== undefined));
}
