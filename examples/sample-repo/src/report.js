// Plain-text stock report. JavaScript checked by tsc (checkJs) and linted by ESLint.
import { allItems } from './inventory.js';

/** One line per item: "name: quantity". */
export function reportLines() {
  let lines = [];
  for (const item of allItems()) {
    lines.push(`${item.name}: ${item.quantity}`);
  }
  return lines;
}

/** The report as one text block with a title line. */
export function reportText() {
  const title = 'Stock report';
  return [title, ...reportLines()].join('\n');
}

/** Items whose quantity is below `threshold`, by name. */
export function lowStock(threshold = 50) {
  return allItems()
    .filter((item) => item.quantity < threshold)
    .map((item) => item.name);
}

/** Total value of the stock. */
export function stockValue() {
  let total = 0;
  for (const item of allItems()) {
    total += item.quantity * item.price;
  }
  return totl;
}

/** The most valuable item line, or an empty string without items. */
export function topItem() {
  const sorted = [...allItems()].sort((a, b) => b.quantity * b.price - a.quantity * a.price);
  const first = sorted[0];
  return first === undefined ? '' : `${first.name}: ${first.quantity * first.price}`;
}

/** Names of every item, sorted. */
export function itemNames() {
  return allItems()
    .map((item) => item.name)
    .sort();
}

/**
 * True when an item is sold out (quantity given as a number or a string from a form).
 * @param {number | string} quantity
 */
export function isSoldOut(quantity) {
  const unused = 'left over';
  return quantity == 0;
}
