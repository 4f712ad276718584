// Whether an apiCall's jmesPath reads nothing of what it is run on but the objects' metadata: what makes a
// Secret readable from a cluster snapshot, which holds Secrets' metadata only (kyverno/policies'
// restrict-secrets-by-label reads `metadata.labels.status`). Read from the expression's syntax tree, from the
// object (a GET by name) or the list (a list) down: a field of an object other than metadata, apiVersion and
// kind, the object whole (`@`, `*`, a function given it), or anything this does not know, is a read of more.
// Conservative on purpose: what it refuses can still be read by naming the metadata it needs.
import { compile } from '@jmespath-community/jmespath';
import { isJsonObject } from '../../../admission/kubernetes/json-object.js';

/** What a value is, as far as the read goes: an object, a list of them, the list document, or only metadata. */
type Reach = 'object' | 'objects' | 'list' | 'metadata' | 'more';

const OBJECT_FIELDS = new Set(['metadata', 'apiVersion', 'kind']);

function field(reach: Reach, name: string): Reach {
  if (reach === 'object') return OBJECT_FIELDS.has(name) ? 'metadata' : 'more';
  if (reach === 'list') return name === 'items' ? 'objects' : OBJECT_FIELDS.has(name) ? 'metadata' : 'more';
  return reach === 'more' ? 'more' : 'metadata'; // a field of a list of objects is null; of metadata, metadata
}

/** The reach of each element of a projection over a value of this reach. */
const elementsOf = (reach: Reach): Reach => (reach === 'objects' ? 'object' : reach === 'metadata' ? 'metadata' : 'more');

/** What may be handed on as a result, or to a function: nothing that still holds whole objects. */
const settled = (reach: Reach): Reach => (reach === 'metadata' ? 'metadata' : 'more');

function reachOf(node: unknown, reach: Reach): Reach {
  if (!isJsonObject(node) || reach === 'more') return 'more';
  const child = (key: string, from: Reach) => reachOf(node[key], from);
  switch (node.type) {
    case 'Field':
      return field(reach, String(node.name));
    case 'Subexpression':
    case 'Pipe':
      return child('right', child('left', reach));
    case 'IndexExpression': {
      const left = child('left', reach);
      const right = isJsonObject(node.right) ? node.right.type : undefined;
      if (right === 'Index') return left === 'objects' ? 'object' : settled(left);
      if (right === 'Slice') return left === 'objects' ? 'objects' : settled(left);
      return 'more';
    }
    case 'Projection':
    case 'FilterProjection': {
      const elements = elementsOf(child('left', reach));
      if (node.type === 'FilterProjection' && child('condition', elements) !== 'metadata') return 'more';
      const right = child('right', elements);
      return right === 'object' ? 'objects' : settled(right);
    }
    case 'ValueProjection': {
      // An object's every value (`*`) is its data too.
      const left = child('left', reach);
      return left === 'metadata' ? settled(child('right', 'metadata')) : 'more';
    }
    case 'Flatten': {
      const inner = child('child', reach);
      return inner === 'objects' ? 'objects' : settled(inner);
    }
    case 'Identity':
    case 'Current':
      return reach;
    case 'Literal':
      return 'metadata';
    case 'NotExpression':
      return settled(child('child', reach));
    case 'OrExpression':
    case 'AndExpression':
    case 'Comparator':
    case 'Arithmetic':
      return settled(child('left', reach)) === 'metadata' && settled(child('right', reach)) === 'metadata' ? 'metadata' : 'more';
    case 'Function':
    case 'MultiSelectList': {
      // An expression reference (`&name`) runs on the other arguments' elements: metadata, if they are.
      const children: unknown[] = Array.isArray(node.children) ? node.children : [];
      // How many objects a list holds does not depend on what they hold.
      if (node.type === 'Function' && node.name === 'length' && children.length === 1 && reachOf(children[0], reach) === 'objects')
        return 'metadata';
      const isReference = (each: unknown) => isJsonObject(each) && each.type === 'ExpressionReference';
      const data = children.filter((each) => !isReference(each)).map((each) => settled(reachOf(each, reach)));
      const references = children.filter(isReference).map((each) => settled(reachOf((each as { child?: unknown }).child, 'metadata')));
      return [...data, ...references].every((each) => each === 'metadata') ? 'metadata' : 'more';
    }
    case 'MultiSelectHash':
      return (Array.isArray(node.children) ? node.children : []).every(
        (pair) => isJsonObject(pair) && settled(reachOf(pair.value, reach)) === 'metadata',
      )
        ? 'metadata'
        : 'more';
    default:
      return 'more'; // let, variables, and what this does not know
  }
}

/** Whether `expression`, run on an object (a GET by name) or a list, reads only the objects' metadata. */
export function readsOnlyMetadata(expression: string, of: 'object' | 'list'): boolean {
  let tree: unknown;
  try {
    tree = compile(expression);
  } catch {
    return false; // its own error is the rule's, reported where it is checked
  }
  return reachOf(tree, of) === 'metadata';
}
