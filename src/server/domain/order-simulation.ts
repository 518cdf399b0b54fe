// What a simulated marketplace order looks like (operator `orders create|cart`, demo seed):
// menus by theme with realistic local prices, customers, providers and order types. Pure data
// and functions over an injected random source.
//
// These sample menus serve brands that have not authored a menu (a brand with one gets carts
// from it: see `generatedLines` in handlers/orders.ts); their item ids and SKUs are synthetic.
import { CURRENCIES, PROVIDERS, type Provider } from './reference-data.js';
import {
  type CatalogueGroup,
  type CatalogueItem,
  type LineInput,
  generateCartLines,
  intBetween,
  pick,
  type Rng,
} from './orders.js';

interface Theme {
  key: string;
  /** Lower-case words in a brand title that select this theme. */
  keywords: readonly string[];
  /** ISO code of the currency `items` are priced in. */
  currency: string;
  items: readonly CatalogueItem[];
}

const group = (
  title: string,
  min: number,
  max: number,
  options: [number, string, string][],
): CatalogueGroup => ({
  title,
  min,
  max,
  options: options.map(([item_id, title, price]) => ({ item_id, title, price })),
});

// Kopi Kita-style Indonesian coffee shop (IDR).
const SUGAR = group('Sugar level', 0, 1, [
  [1101, 'Less sugar', '0'],
  [1102, 'No sugar', '0'],
]);
const COFFEE_EXTRAS = group('Extras', 0, 2, [
  [1111, 'Extra espresso shot', '6000'],
  [1112, 'Oat milk', '8000'],
  [1113, 'Palm sugar syrup', '4000'],
  [1114, 'Cheese foam', '7000'],
]);
const COFFEE: Theme = {
  key: 'coffee',
  keywords: ['kopi', 'coffee', 'cafe', 'café', 'espresso'],
  currency: 'IDR',
  items: [
    {
      item_id: 1001,
      partner_item_id: 'KK-ES-KOPI-SUSU',
      title: 'Es Kopi Susu Gula Aren',
      price: '28000',
      groups: [SUGAR, COFFEE_EXTRAS],
    },
    {
      item_id: 1002,
      partner_item_id: 'KK-AMERICANO',
      title: 'Americano',
      price: '25000',
      groups: [COFFEE_EXTRAS],
    },
    {
      item_id: 1003,
      partner_item_id: 'KK-CAFE-LATTE',
      title: 'Café Latte',
      price: '32000',
      groups: [SUGAR, COFFEE_EXTRAS],
    },
    {
      item_id: 1004,
      partner_item_id: 'KK-MATCHA-LATTE',
      title: 'Matcha Latte',
      price: '35000',
      groups: [SUGAR],
    },
    { item_id: 1005, partner_item_id: 'KK-CROISSANT', title: 'Butter Croissant', price: '24000' },
    { item_id: 1006, partner_item_id: 'KK-PISANG-GORENG', title: 'Pisang Goreng Keju', price: '22000' },
    { item_id: 1007, partner_item_id: 'KK-ROTI-BAKAR', title: 'Roti Bakar Cokelat Keju', price: '26000' },
  ],
};

// Nasi Nusantara-style Indonesian rice dishes (IDR).
const SPICE = group('Spice level', 1, 1, [
  [1201, 'Mild', '0'],
  [1202, 'Medium', '0'],
  [1203, 'Extra pedas', '0'],
]);
const RICE_ADDONS = group('Add-ons', 0, 3, [
  [1211, 'Telur mata sapi', '5000'],
  [1212, 'Extra sambal matah', '3000'],
  [1213, 'Kerupuk udang', '4000'],
  [1214, 'Tempe goreng', '5000'],
]);
const INDONESIAN: Theme = {
  key: 'indonesian',
  keywords: ['nasi', 'warung', 'nusantara', 'padang', 'sate'],
  currency: 'IDR',
  items: [
    {
      item_id: 1051,
      partner_item_id: 'NN-NASGOR-SPESIAL',
      title: 'Nasi Goreng Spesial',
      price: '45000',
      groups: [SPICE, RICE_ADDONS],
    },
    {
      item_id: 1052,
      partner_item_id: 'NN-AYAM-BAKAR',
      title: 'Nasi Ayam Bakar Madu',
      price: '48000',
      groups: [SPICE, RICE_ADDONS],
    },
    {
      item_id: 1053,
      partner_item_id: 'NN-RENDANG',
      title: 'Nasi Rendang Sapi',
      price: '55000',
      groups: [RICE_ADDONS],
    },
    {
      item_id: 1054,
      partner_item_id: 'NN-SATE-AYAM',
      title: 'Sate Ayam (10 tusuk)',
      price: '42000',
      groups: [SPICE],
    },
    { item_id: 1055, partner_item_id: 'NN-SOTO-BETAWI', title: 'Soto Betawi', price: '40000' },
    { item_id: 1056, partner_item_id: 'NN-GADO-GADO', title: 'Gado-Gado', price: '35000', groups: [SPICE] },
    { item_id: 1057, partner_item_id: 'NN-ES-TEH', title: 'Es Teh Manis', price: '10000' },
    { item_id: 1058, partner_item_id: 'NN-ES-JERUK', title: 'Es Jeruk Peras', price: '15000' },
  ],
};

// Sen Lek-style Thai noodle bar (THB, 7% VAT included).
const NOODLE = group('Noodle type', 1, 1, [
  [2101, 'Sen lek (thin rice noodle)', '0.00'],
  [2102, 'Sen yai (wide rice noodle)', '0.00'],
  [2103, 'Ba mee (egg noodle)', '0.00'],
]);
const NOODLE_EXTRAS = group('Extras', 0, 2, [
  [2111, 'Extra pork balls', '20.00'],
  [2112, 'Soft-boiled egg', '15.00'],
  [2113, 'Crispy pork', '30.00'],
  [2114, 'Large portion', '20.00'],
]);
const THAI_NOODLES: Theme = {
  key: 'thai-noodles',
  keywords: ['sen', 'noodle', 'kuay', 'ramen', 'pho'],
  currency: 'THB',
  items: [
    {
      item_id: 2001,
      partner_item_id: 'SL-BOAT-NOODLE',
      title: 'Boat Noodle Soup (Pork)',
      price: '89.00',
      groups: [NOODLE, NOODLE_EXTRAS],
    },
    {
      item_id: 2002,
      partner_item_id: 'SL-TOM-YUM-NOODLE',
      title: 'Tom Yum Noodle Soup',
      price: '99.00',
      groups: [NOODLE, NOODLE_EXTRAS],
    },
    {
      item_id: 2003,
      partner_item_id: 'SL-PAD-THAI',
      title: 'Pad Thai with Shrimp',
      price: '129.00',
      groups: [NOODLE_EXTRAS],
    },
    { item_id: 2004, partner_item_id: 'SL-PAD-SEE-EW', title: 'Pad See Ew with Chicken', price: '109.00' },
    { item_id: 2005, partner_item_id: 'SL-KHAO-MAN-GAI', title: 'Khao Man Gai', price: '79.00' },
    { item_id: 2006, partner_item_id: 'SL-THAI-TEA', title: 'Thai Iced Tea', price: '55.00' },
    { item_id: 2007, partner_item_id: 'SL-LEMONGRASS', title: 'Lemongrass Iced Drink', price: '45.00' },
  ],
};

// Khanom Waan-style Thai desserts (THB).
const TOPPINGS = group('Toppings', 0, 2, [
  [2211, 'Extra coconut cream', '15.00'],
  [2212, 'Roasted mung beans', '10.00'],
  [2213, 'Vanilla ice cream', '25.00'],
]);
const THAI_DESSERTS: Theme = {
  key: 'thai-desserts',
  keywords: ['khanom', 'dessert', 'sweet', 'waan', 'bakery'],
  currency: 'THB',
  items: [
    {
      item_id: 2051,
      partner_item_id: 'KW-MANGO-STICKY',
      title: 'Mango Sticky Rice',
      price: '120.00',
      groups: [TOPPINGS],
    },
    {
      item_id: 2052,
      partner_item_id: 'KW-BUA-LOY',
      title: 'Bua Loy in Warm Coconut Milk',
      price: '65.00',
      groups: [TOPPINGS],
    },
    { item_id: 2053, partner_item_id: 'KW-KHANOM-KROK', title: 'Khanom Krok (8 pcs)', price: '59.00' },
    { item_id: 2054, partner_item_id: 'KW-TAKO', title: 'Tako Pandan Coconut Pudding', price: '45.00' },
    {
      item_id: 2055,
      partner_item_id: 'KW-COCONUT-ICE',
      title: 'Coconut Ice Cream',
      price: '69.00',
      groups: [TOPPINGS],
    },
    { item_id: 2056, partner_item_id: 'KW-CHA-YEN', title: 'Cha Yen Frappé', price: '75.00' },
  ],
};

// Anything else: a burger joint priced in USD and converted to the branch's currency.
const BURGER_EXTRAS = group('Extras', 0, 3, [
  [3111, 'Extra cheese', '1.00'],
  [3112, 'Bacon', '1.50'],
  [3113, 'Jalapeños', '0.50'],
]);
const BURGERS: Theme = {
  key: 'burgers',
  keywords: ['burger', 'grill', 'diner'],
  currency: 'USD',
  items: [
    {
      item_id: 3001,
      partner_item_id: 'BG-CLASSIC',
      title: 'Classic Cheeseburger',
      price: '6.50',
      groups: [BURGER_EXTRAS],
    },
    {
      item_id: 3002,
      partner_item_id: 'BG-DOUBLE',
      title: 'Double Smash Burger',
      price: '8.90',
      groups: [BURGER_EXTRAS],
    },
    {
      item_id: 3003,
      partner_item_id: 'BG-CHICKEN',
      title: 'Crispy Chicken Burger',
      price: '7.20',
      groups: [BURGER_EXTRAS],
    },
    { item_id: 3004, partner_item_id: 'BG-FRIES', title: 'Fries', price: '2.50' },
    { item_id: 3005, partner_item_id: 'BG-ONION-RINGS', title: 'Onion Rings', price: '3.00' },
    { item_id: 3006, partner_item_id: 'BG-COLA', title: 'Cola', price: '1.80' },
  ],
};

export const THEMES: readonly Theme[] = Object.freeze([
  COFFEE,
  INDONESIAN,
  THAI_NOODLES,
  THAI_DESSERTS,
  BURGERS,
]);

/** The sample menu for a brand: by words in its title, else by the branch's country. */
export function themeFor(brandTitle: string, countryCode: string): Theme {
  const words = brandTitle.toLowerCase();
  const byTitle = THEMES.find((t) => t.keywords.some((k) => words.includes(k)));
  if (byTitle) return byTitle;
  if (countryCode === 'ID') return INDONESIAN;
  if (countryCode === 'TH') return THAI_NOODLES;
  return BURGERS;
}

// Minor units of each currency per US dollar (rough, stable: only used to price sample menus)
// and the step prices are rounded to, in minor units.
const PER_USD: Record<string, { rate: number; step: number }> = {
  IDR: { rate: 16_000, step: 500 },
  THB: { rate: 3_600, step: 100 },
  VND: { rate: 25_000, step: 1_000 },
  MYR: { rate: 470, step: 10 },
  PHP: { rate: 5_700, step: 100 },
  SGD: { rate: 135, step: 10 },
  KHR: { rate: 4_100, step: 100 },
  USD: { rate: 100, step: 10 },
  JPY: { rate: 150, step: 10 },
  TWD: { rate: 32, step: 5 },
};

function decimalsOf(code: string): number {
  return CURRENCIES.find((c) => c.code === code)?.decimals ?? 2;
}

/** Converts a catalogue price between currencies in integer minor units, rounded to a menu-like step. */
export function convertPrice(price: string, from: string, to: string): string {
  if (from === to) return price;
  const a = PER_USD[from];
  const b = PER_USD[to];
  if (!a || !b) return price;
  const fromDec = decimalsOf(from);
  const [w, f = ''] = price.split('.');
  const minor = BigInt(w! + f.padEnd(fromDec, '0').slice(0, fromDec));
  // minor(to) = minor(from) × b.rate / a.rate, rounded to the nearest step (half up).
  const scaled = minor * BigInt(b.rate);
  const den = BigInt(a.rate) * BigInt(b.step);
  const steps = (scaled * 2n + den) / (den * 2n);
  const out = steps * BigInt(b.step);
  const dec = decimalsOf(to);
  const digits = out.toString().padStart(dec + 1, '0');
  return dec === 0 ? digits : `${digits.slice(0, -dec)}.${digits.slice(-dec)}`;
}

/** The theme's items with prices in `currency`. */
export function catalogueIn(theme: Theme, currency: string): CatalogueItem[] {
  const conv = (p: string) => convertPrice(p, theme.currency, currency);
  return theme.items.map((i) => ({
    ...i,
    price: conv(i.price),
    ...(i.groups
      ? {
          groups: i.groups.map((g) => ({
            ...g,
            options: g.options.map((o) => ({ ...o, price: conv(o.price) })),
          })),
        }
      : {}),
  }));
}

const NAMES: Record<string, readonly string[]> = {
  ID: [
    'Budi Santoso',
    'Siti Rahayu',
    'Andi Pratama',
    'Dewi Lestari',
    'Rizky Hidayat',
    'Putri Maharani',
    'Agus Wijaya',
    'Nur Aisyah',
  ],
  TH: [
    'Somchai Jaidee',
    'Malee Srisuk',
    'Anan Wongsa',
    'Pimchanok Rattana',
    'Kittisak Boonmee',
    'Nattaya Chaiyaporn',
  ],
  VN: ['Nguyễn Văn An', 'Trần Thị Bích', 'Lê Minh Khoa', 'Phạm Thu Hà'],
  MY: ['Ahmad Faizal', 'Tan Mei Ling', 'Siti Nurhaliza', 'Rajesh Kumar'],
  PH: ['Juan dela Cruz', 'Maria Santos', 'Jose Reyes', 'Angelica Bautista'],
  SG: ['Lim Wei Jie', 'Nur Hidayah', 'Priya Nair', 'Daniel Tan'],
  KH: ['Sok Dara', 'Chan Sophea', 'Vann Rithy'],
  JP: ['Sato Haruto', 'Suzuki Yui', 'Takahashi Ren'],
  TW: ['Chen Yi-Ting', 'Lin Chia-Hao', 'Wang Hsin-Yi'],
};
const PHONE_CODES: Record<string, string> = {
  ID: '+62',
  TH: '+66',
  VN: '+84',
  MY: '+60',
  PH: '+63',
  SG: '+65',
  KH: '+855',
  JP: '+81',
  TW: '+886',
};
// Mobile number prefixes (after the country code) and how many digits follow them.
const MOBILE: Record<string, { prefixes: readonly string[]; digits: number }> = {
  ID: { prefixes: ['812', '813', '821', '857', '878'], digits: 7 },
  TH: { prefixes: ['81', '86', '89', '91', '95'], digits: 7 },
  VN: { prefixes: ['90', '91', '98', '70'], digits: 7 },
  MY: { prefixes: ['12', '16', '17', '19'], digits: 7 },
  PH: { prefixes: ['917', '918', '927', '995'], digits: 7 },
  SG: { prefixes: ['8', '9'], digits: 7 },
  KH: { prefixes: ['12', '17', '92', '97'], digits: 6 },
  JP: { prefixes: ['80', '90'], digits: 8 },
  TW: { prefixes: ['912', '921', '933'], digits: 6 },
};

export function simulateCustomer(countryCode: string, rng: Rng): { name: string; phone: string } {
  const names = NAMES[countryCode] ?? NAMES.SG!;
  const code = PHONE_CODES[countryCode] ?? '+65';
  const mobile = MOBILE[countryCode] ?? MOBILE.SG!;
  let rest = '';
  for (let i = 0; i < mobile.digits; i++) rest += String(intBetween(rng, 0, 9));
  return { name: pick(rng, names), phone: `${code}${pick(rng, mobile.prefixes)}${rest}` };
}

/** Providers operating in the country; marketplaces come up more often than direct channels. */
export function simulateProvider(countryCode: string, rng: Rng): Provider {
  const local = PROVIDERS.filter((p) => p.countries.includes(countryCode));
  const pool = local.length ? local : PROVIDERS;
  const weighted = pool.flatMap((p) => (p.type === 'marketplace' ? [p, p, p] : [p]));
  return pick(rng, weighted);
}

/** 1 delivery, 2 pickup, 3 dine-in: kiosks are mostly dine-in; marketplaces mostly deliver. */
export function simulateOrderType(provider: Provider, rng: Rng): 1 | 2 | 3 {
  const r = rng();
  if (provider.title === 'Kiosk') return r < 0.7 ? 3 : 2;
  if (provider.type === 'direct') return r < 0.5 ? 1 : 2;
  return r < 0.85 ? 1 : 2;
}

/** A cart of `lines` lines (default 2–4, like most marketplace orders) from the brand's sample menu, priced in `currency`. */
export function simulateCart(
  brandTitle: string,
  countryCode: string,
  currency: string,
  rng: Rng,
  lines?: number,
): LineInput[] {
  const items = catalogueIn(themeFor(brandTitle, countryCode), currency);
  return generateCartLines(items, lines ?? intBetween(rng, 2, 4), rng);
}
