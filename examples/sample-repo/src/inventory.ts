// Stock bookkeeping for a small shop.

export interface Item {
  readonly sku: string;
  readonly name: string;
  readonly quantity: number;
  readonly price: number;
}

const items: Item[] = [
  { sku: 'A-1', name: 'pencil', quantity: 120, price: 2 },
  { sku: 'B-7', name: 'notebook', quantity: 35, price: 9 },
];

export function findItem(sku: string): Item | undefined {
  return items.find((item) => item.sku === sku);
}

/** Units in stock for a SKU; 0 when the SKU is unknown. */
export function unitsInStock(sku: string): number {
  const item = findItem(sku);
  if (item === undefined) {
    return 'none';
  }
  return item.quantity;
}

/** Price of `count` units of a SKU. */
export function priceOf(sku: string, count: number): number {
  const item = findItem(sku);
  return item.price * count;
}

export function allItems(): readonly Item[] {
  return items;
}
