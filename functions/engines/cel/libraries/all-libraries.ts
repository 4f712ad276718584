// The CEL environment's libraries beyond the engine's own, in one list: Kubernetes' (as the API server has
// them for admission policies) and Kyverno's, its resource lookups answered from the cluster view and its
// image data from registries. Its HTTP calls are made only to the hosts a deployment allows, global context
// is answered only by a test suite's mocks, and its writes are refused at compile (program.ts); its time,
// transform, random, x509 and yaml libraries are not here, so an expression that calls them does not compile, never
// fails at admission.
import type { CelLibrary } from './cel-library.js';
import { celRegexLibrary } from './cel-regex/library.js';
import { functionNamesOf, identifiersOf } from './cel-library.js';
import { formatLibrary } from './format/library.js';
import { ipLibrary } from './ip/library.js';
import { jsonPatchLibrary } from './jsonpatch/library.js';
import { kyvernoGlobalContextLibrary } from './kyverno-globalcontext/library.js';
import { kyvernoHashLibrary } from './kyverno-hash/library.js';
import { kyvernoHttpLibrary } from './kyverno-http/library.js';
import { kyvernoImageLibrary } from './kyverno-image/library.js';
import { kyvernoImageDataLibrary } from './kyverno-imagedata/library.js';
import { kyvernoJsonLibrary } from './kyverno-json/library.js';
import { kyvernoMathLibrary } from './kyverno-math/library.js';
import { kyvernoResourceLibrary } from './kyverno-resource/library.js';
import { kyvernoUserLibrary } from './kyverno-user/library.js';
import { listsLibrary } from './lists/library.js';
import { quantityLibrary } from './quantity/library.js';
import { regexLibrary } from './regex/library.js';
import { semverLibrary } from './semver/library.js';
import { setsLibrary } from './sets/library.js';
import { stringsLibrary } from './strings/library.js';
import { urlLibrary } from './url/library.js';

export const CEL_LIBRARIES: readonly CelLibrary[] = [
  // Kubernetes
  stringsLibrary,
  listsLibrary,
  setsLibrary,
  regexLibrary,
  quantityLibrary,
  semverLibrary,
  urlLibrary,
  ipLibrary,
  formatLibrary,
  jsonPatchLibrary,
  // Kyverno (cel-go's regex extension is in its environment, not the API server's)
  celRegexLibrary,
  kyvernoUserLibrary,
  kyvernoImageLibrary,
  kyvernoHashLibrary,
  kyvernoMathLibrary,
  kyvernoJsonLibrary,
  kyvernoResourceLibrary,
  kyvernoHttpLibrary,
  kyvernoGlobalContextLibrary,
  kyvernoImageDataLibrary,
];

/** Every function the libraries declare, and `type`, which the engine overloads for each type they add. */
export const LIBRARY_FUNCTIONS: ReadonlySet<string> = new Set([...functionNamesOf(CEL_LIBRARIES), 'type']);

/** The identifiers they add: namespaces (`sets.contains`) and the first part of each type's name (`net.IP`). */
export const LIBRARY_IDENTIFIERS: ReadonlySet<string> = identifiersOf(CEL_LIBRARIES);

/** The functions of Kyverno's libraries, which the API server's own CEL environment does not have. */
export const KYVERNO_FUNCTIONS: ReadonlySet<string> = functionNamesOf(CEL_LIBRARIES.filter((library) => library.kyvernoOnly));
