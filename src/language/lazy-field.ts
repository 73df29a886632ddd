/**
 * A field worked out when first read: the `headers` of an API's response, which most steps never
 * read. It is an own enumerable property, as an object literal's `get` is, so that JSON,
 * `structuredClone` and spreads see it. A literal's getter is a new closure on every object, and V8
 * keeps such objects in dictionary mode: about 0.3 µs to make, and slow to read wherever they go.
 * Here every object shares one getter per field name; what it reads lives in private fields put on
 * the object itself (a base class whose constructor returns the object lets a class add them to any).
 */

/** Its constructor returns the object it is given: the fields `LazyField` declares are added to that object. */
class OnObject {
  constructor(target: object) {
    return target;
  }
}

class LazyField extends OnObject {
  #read: (() => unknown) | undefined;
  #value: unknown;

  constructor(target: object, read: () => unknown) {
    super(target);
    this.#read = read;
  }

  /** The field's value: read the first time, and kept (a read that throws is tried again next time). */
  static valueIn(target: object): unknown {
    // A getter copied onto another object (`Object.defineProperties` with these descriptors) reads nothing.
    if (!(#read in target)) return undefined;
    const field = target as LazyField;
    const read = field.#read;
    if (read !== undefined) {
      field.#value = read();
      field.#read = undefined;
    }
    return field.#value;
  }
}

/** One descriptor per field name: objects given the same field share their hidden class. */
const descriptors = new Map<string, PropertyDescriptor>();

function descriptorOf(key: string): PropertyDescriptor {
  let descriptor = descriptors.get(key);
  if (descriptor === undefined) {
    descriptor = {
      get(this: object) {
        return LazyField.valueIn(this);
      },
      enumerable: true,
      configurable: true,
    };
    descriptors.set(key, descriptor);
  }
  return descriptor;
}

/**
 * Adds `key` to `target`, after its present fields, as a field whose value `read` gives when first
 * read. One lazy field per object.
 *
 * @example const response = withLazyField({ status: 200 }, 'headers', () => headersOf(raw)); // JSON.stringify(response) reads them
 */
export function withLazyField<T extends object, K extends string, V>(
  target: T,
  key: K,
  read: () => V,
): T & { readonly [P in K]: V } {
  Object.defineProperty(target, key, descriptorOf(key));
  new LazyField(target, read);
  return target as T & { readonly [P in K]: V };
}
