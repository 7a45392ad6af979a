import { z } from 'zod';
import { RESOURCES, ROLES, type Resource as ResourceName, type Role as RoleName } from './rbac-table.js';

export * from './rbac-table.js';

/** Roles as the spec names them (zod enum of ROLES, for the request and response contracts). */
export const Role = z.enum(ROLES);
export type Role = RoleName;

/** RBAC resources of the spec (document 000, section 6), as a zod enum of RESOURCES. */
export const Resource = z.enum(RESOURCES);
export type Resource = ResourceName;
