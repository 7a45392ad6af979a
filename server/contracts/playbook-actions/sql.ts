import { z } from 'zod';
import { templatedString } from './env-var.js';

/**
 * The `sql` action's block (issue 14): runs `query` on PostgreSQL or MySQL/MariaDB given by `url` or `connection`
 * (`connection://ns/name`, a name or an id) → `{query, rows, count, columns}`. The reference's `sqlserver` driver is
 * refused here by path.
 */
export const SqlAction = z.object({
  query: z.string().trim().min(1, 'query is required'),
  driver: templatedString((v) => v === 'postgres' || v === 'mysql', 'driver must be postgres or mysql (sqlserver is not supported by this console)').optional(),
  url: z.string().optional(),
  connection: z.string().optional(),
}).loose().refine((a) => !!(a.url || a.connection), { message: 'url or connection is required', path: ['url'] });
export type SqlAction = z.infer<typeof SqlAction>;
