/** The ledger's HTTP client. */

export interface Entry {
  id: string;
  memo: string;
  amount: number;
}

async function request(path: string, init?: RequestInit): Promise<Response> {
  return fetch(`/api/v1${path}`, init);
}

/** Creates an entry through POST /api/v1/entries. */
export async function createEntry(entry: Entry): Promise<string> {
  const response = await request("/entries", { method: "POST", body: JSON.stringify(entry) });
  return response.json();
}

export async function fetchEntry(id: string): Promise<Entry> {
  const response = await request(`/entries/${id}`);
  return response.json();
}
