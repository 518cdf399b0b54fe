// A generated menu file past every list bound of the menu API (500 ids per call): one section
// with `categories` categories, `items` items all offered the same 3-choice group, and a group
// of `toppings` modifiers that no item offers. The defaults make 2,000 items and modifiers.

export interface BigMenuSize {
  categories: number;
  items: number;
  toppings: number;
}

export const BIG: BigMenuSize = { categories: 520, items: 1397, toppings: 600 };

export function bigMenu(o: BigMenuSize = BIG) {
  const modifier = (key: string, title: string, sku: string, price: string) => ({
    key,
    title,
    partner_item_id: sku,
    prices: { '1': price },
  });
  const sizes = ['s', 'm', 'l'].map((k) => modifier(`size-${k}`, `Size ${k}`, `MOD-SIZE-${k}`, '0.00'));
  const toppings = Array.from({ length: o.toppings }, (_, i) =>
    modifier(`top-${i}`, `Topping ${i}`, `MOD-TOP-${i}`, '1000.00'),
  );
  const categories = Array.from({ length: o.categories }, (_, c) => ({
    key: `cat-${c}`,
    title: `Category ${c}`,
    items: [] as object[],
  }));
  for (let i = 0; i < o.items; i++) {
    categories[i % o.categories]!.items.push({
      key: `item-${i}`,
      title: `Item ${i}`,
      partner_item_id: `SKU-${i}`,
      prices: { '1': `${10_000 + i}.00` },
      modifierGroups: ['sizes'],
    });
  }
  return {
    modifierGroups: [
      { key: 'sizes', title: 'Size', min: 1, max: 1, modifiers: sizes },
      { key: 'toppings', title: 'Toppings', min: 0, max: 5, modifiers: toppings },
    ],
    sections: [{ key: 'everything', title: 'Everything', categories }],
  };
}
