// Field schemas shared by the payloads of the store's entry types (zod/mini, like every format:
// docs/architecture.md "One definition per format").
import { digestString, int, str } from '../../core/schema-primitives.js';
import { BOOT_ID_RE, GIT_OID_RE, LEASE_ID_RE, UNIT_ID_RE, WRITER_SESSION_RE } from '../ids.js';

export const seconds = int(0);
export const digest = digestString;
export const unitId = str({ re: UNIT_ID_RE });
export const leaseId = str({ re: LEASE_ID_RE });
export const gitOid = str({ re: GIT_OID_RE });
export const writerSession = str({ re: WRITER_SESSION_RE });
export const bootId = str({ re: BOOT_ID_RE });
export const pid = int(1);
