// State a layer above keeps about an object it does not own: the serve path's refs snapshot and
// opened bitmap of a Repository, the ls-refs answers of a refs snapshot. The object holds it, so it
// lives and goes with that object, and no module keeps a table of its own.

/** Names one kind of derived state; each module that keeps some makes its key once. */
export class DerivedKey<T> {
  declare private readonly type: T;
  constructor(readonly name: string) {}
}

export class Derived {
  private readonly values = new Map<DerivedKey<unknown>, unknown>();

  get<T>(key: DerivedKey<T>): T | undefined {
    return this.values.get(key) as T | undefined;
  }

  set<T>(key: DerivedKey<T>, value: T): void {
    this.values.set(key, value);
  }

  delete(key: DerivedKey<unknown>): void {
    this.values.delete(key);
  }

  /** The state for `key`, made by `make` the first time it is asked for. */
  of<T>(key: DerivedKey<T>, make: () => T): T {
    if (this.values.has(key)) return this.values.get(key) as T;
    const value = make();
    this.values.set(key, value);
    return value;
  }

  clear(): void {
    this.values.clear();
  }
}
