// Kubernetes' jsonpatch library for CEL (k8s.io/apiserver/pkg/cel/library/jsonpatch.go), which
// MutatingAdmissionPolicy's JSONPatch expressions use to build paths: jsonpatch.escapeKey writes a key as a
// JSON Pointer reference token (RFC 6901: `~` as `~0`, `/` as `~1`).
import { escapedSegment } from '../../../../admission/kubernetes/json-patch-operations.js';
import type { CelLibrary } from '../cel-library.js';

export const jsonPatchLibrary: CelLibrary = {
  name: 'kubernetes.jsonpatch',
  namespaces: [{ constant: 'jsonpatch' }],
  functions: {
    'jsonpatch.escapeKey(string): string': (_namespace: unknown, key: string) => escapedSegment(key),
  },
};
