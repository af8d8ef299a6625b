// The pinned digest of runner/seccomp/filter-x86_64.bpf (docs/runner.md#the-run-step-by-step step 4). Regenerate the blob with
// runner/seccomp/generate.ts and update this constant in the same change; test/sandbox-seccomp
// rebuilds the filter and fails when the bytes, the committed file or this digest disagree.
export const SECCOMP_X86_64_SHA256 = '4d55f13835d61ba5a8d5af86e43cd85a705f7c353d63c5a096cee5b93bdc63d9';
/** The relay profile's filter (filter-tcp-x86_64.bpf: AF_UNIX plus loopback-reachable TCP stream
 * sockets; docs/egress.md#the-in-sandbox-relay), regenerated the same way with `loopback-tcp`. */
export const SECCOMP_TCP_X86_64_SHA256 = 'f0633af63486cdb5b547d7ca561213ee184d80c9ca50e485b76a4bf2ea638e9a';
