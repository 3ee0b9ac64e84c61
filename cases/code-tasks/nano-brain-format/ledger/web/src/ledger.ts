import { createEntry, fetchEntry, type Entry } from "./api";

/** Shows one entry and books new ones. */
export class LedgerView {
  current?: Entry;

  async show(id: string): Promise<void> {
    this.current = await fetchEntry(id);
  }

  async book(memo: string, amount: number): Promise<void> {
    const id = await createEntry({ id: "", memo, amount });
    await this.show(id);
  }
}
