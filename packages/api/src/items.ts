/**
 * The item iterators of `recipients()` and `scim.users()`: the items of pages, one at a time.
 */

/**
 * The pages' items in one array. `concat` copies whole arrays at once; in a fresh process it took
 * 0.1 ms for 50 pages of 200, where `flat()` or a `push` per item took about 3 ms. A thousand pages at a
 * time, so that no call gets an unbounded number of arguments.
 */
function join<T>(pages: readonly (readonly T[])[]): T[] {
  let all: T[] = [];
  for (let at = 0; at < pages.length; at += 1000) all = all.concat(...pages.slice(at, at + 1000));
  return all;
}

/**
 * An async generator over the items of the pages that `pages` yields. `pages` is a real async generator
 * that does the requests and every pagination check; this one hands out the items of the page at hand
 * without suspending a generator per item (for a listing of 10,000, that suspension cost more than
 * reading the response). Like a generator, it runs `next()`, `return()` and `throw()` calls one after
 * the other in the order they were made; `return()` and `throw()` finish `pages`, so no further request
 * is sent, and once finished it only answers `done`.
 */
export class PageItems<T> implements AsyncGenerator<T, void, undefined> {
  readonly #pages: AsyncGenerator<readonly T[], void, undefined>;
  #page: readonly T[] = [];
  #at = 0;
  /** Calls still running or waiting their turn. */
  #busy = 0;
  #last: Promise<unknown> = Promise.resolve();

  constructor(pages: AsyncGenerator<readonly T[], void, undefined>) {
    this.#pages = pages;
  }

  /**
   * Every item still to come, in order, in one array: what `for await (const item of items) all.push(item)`
   * collects, and the same requests and checks, but taken a page at a time instead of a promise per item.
   * For a caller that wants the whole listing anyway (the CLI); any other async iterable is read item by
   * item.
   */
  static async all<T>(items: AsyncIterable<T>): Promise<T[]> {
    if (!(items instanceof PageItems)) {
      const all: T[] = [];
      for await (const item of items) all.push(item);
      return all;
    }
    const it = items as PageItems<T>;
    return it.#inTurn(async () => {
      const pages: (readonly T[])[] = [it.#page.slice(it.#at)];
      it.#at = it.#page.length;
      for (;;) {
        const step = await it.#pages.next();
        if (step.done) return join(pages);
        it.#page = step.value;
        it.#at = step.value.length;
        pages.push(step.value);
      }
    });
  }

  /**
   * The items still to come, a page at a time, as the server sent them: for a caller that writes each page as
   * it arrives (the CLI's streamed formats) and keeps none. Any other async iterable comes in batches of
   * `batch` items. Leaving the loop early finishes `items`: no further request is sent. The caller makes no
   * other call on `items` meanwhile.
   */
  static async *pages<T>(items: AsyncIterable<T>, batch = 200): AsyncGenerator<readonly T[], void, undefined> {
    if (!(items instanceof PageItems)) {
      let buffer: T[] = [];
      for await (const item of items) {
        buffer.push(item);
        if (buffer.length >= batch) {
          yield buffer;
          buffer = [];
        }
      }
      if (buffer.length) yield buffer;
      return;
    }
    const it = items as PageItems<T>;
    let finished = false;
    try {
      const rest = it.#page.slice(it.#at);
      it.#finish();
      if (rest.length) yield rest;
      for (;;) {
        const step = await it.#pages.next();
        if (step.done) {
          finished = true;
          return;
        }
        yield step.value;
      }
    } finally {
      // A break, a throw in the loop's body, or a failed request: the pages' generator ends, nothing more is sent.
      if (!finished) await it.#pages.return();
    }
  }

  next(): Promise<IteratorResult<T, void>> {
    if (this.#busy === 0 && this.#at < this.#page.length)
      return Promise.resolve({ value: this.#page[this.#at++], done: false });
    return this.#inTurn(async () => {
      while (this.#at >= this.#page.length) {
        const step = await this.#pages.next();
        if (step.done) return { value: undefined, done: true };
        this.#page = step.value;
        this.#at = 0;
      }
      return { value: this.#page[this.#at++], done: false };
    });
  }

  return(value?: void | PromiseLike<void>): Promise<IteratorResult<T, void>> {
    return this.#inTurn(async () => {
      this.#finish();
      await this.#pages.return();
      return { value: await value, done: true };
    });
  }

  throw(error: unknown): Promise<IteratorResult<T, void>> {
    return this.#inTurn(async () => {
      this.#finish();
      await this.#pages.return();
      throw error;
    });
  }

  [Symbol.asyncIterator](): this {
    return this;
  }

  #finish(): void {
    this.#page = [];
    this.#at = 0;
  }

  /** Runs `step` after every call made before it has settled. */
  #inTurn<R>(step: () => Promise<R>): Promise<R> {
    this.#busy++;
    const run = this.#last.then(step).finally(() => {
      this.#busy--;
    });
    this.#last = run.catch(() => {});
    return run;
  }
}
