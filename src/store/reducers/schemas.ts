// Field schemas shared by the payloads of the store's entry types.
import * as z from 'zod';
import { DIGEST_RE } from '../../core/canonical.js';
import { BOOT_ID_RE, GIT_OID_RE, LEASE_ID_RE, UNIT_ID_RE, WRITER_SESSION_RE } from '../ids.js';

export const seconds = z.int().min(0);
export const digest = z.string().regex(DIGEST_RE);
export const unitId = z.string().regex(UNIT_ID_RE);
export const leaseId = z.string().regex(LEASE_ID_RE);
export const gitOid = z.string().regex(GIT_OID_RE);
export const writerSession = z.string().regex(WRITER_SESSION_RE);
export const bootId = z.string().regex(BOOT_ID_RE);
export const pid = z.int().min(1);
