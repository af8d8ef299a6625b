// The closed vocabularies of preservation (docs/preservation.md#the-contract, #adapter-protocol), in a
// module of their own that constructs no schema: the pinned coverage reviewer bundles the bundle's
// preservation section schema (src/core/bundle/preservation-schema.ts), which needs these lists but
// not the contract or probe schemas (their construction would run at every reviewer start). The
// contract schema (./schema.ts) and the probe protocol (./probe.ts) re-export them. Pure.

/** What a surface is. `other` is the explicit escape hatch and needs an `na_reason`. */
export const SURFACE_KINDS = [
  'cli_command',
  'api',
  'library_export',
  'data_schema',
  'ui_route',
  'job',
  'package_target',
  'ops_path',
  'other',
] as const;

/** Lowercase dispositions. The first two keep the surface; the other five are destructive. */
export const DISPOSITIONS = ['preserve', 'extend', 'replace', 'remove', 'disable', 'redirect', 'migrate'] as const;
export const DESTRUCTIVE_DISPOSITIONS = ['replace', 'remove', 'disable', 'redirect', 'migrate'] as const;

/** Vendor sources the product imports or keeps from a third party; both need an attested origin. */
export const VENDOR_DISPOSITIONS = ['import', 'preserve'] as const;

/** The entry names an adapter uses: `bin:NAME`, `export:SUBPATH`, `script:NAME`. */
export const ENTRY_RE = /^[a-z]+:[\x21-\x7e]{1,250}$/;
/** A capability token: a subcommand, an option or an export name. */
export const CAPABILITY_RE = /^[A-Za-z0-9_$.:@/-]{1,128}$/;

/** The kinds of an incident-history item (./incident.ts builds the history). */
export const INCIDENT_KINDS = ['directives', 'scope_change', 'correction', 'drift', 'dirty', 'aborted'] as const;
