// Demo menus for `--seed demo`: one realistic published menu per demo brand, synced and
// published to every branch that carries it. Indonesian coffee and rice for business 1 (IDR),
// Thai noodles and desserts for business 2 (THB). Written through the menu services (the
// functions the handlers call), not HTTP, in one unit of work.
import type { Services } from '../handlers/context.js';
import {
  createCategory,
  createItem,
  createModifierGroup,
  createSection,
} from '../services/menus/catalogue.js';
import { changeLinks } from '../services/menus/links.js';
import { publishMenu, syncMenu } from '../services/menus/publish.js';
import { applyToSkus, availability, stockCount } from '../services/menus/stock.js';
import type { SeededBusiness } from './demo.js';

type Money = 'IDR' | 'THB';
/** [title, SKU, base price, description?, modifier group keys?] */
type DemoItem = [string, string, number, string?, string[]?];
interface DemoGroup {
  key: string;
  title: string;
  min: number;
  max: number;
  /** [title, SKU, extra price] */
  modifiers: [string, string, number][];
}
interface DemoSection {
  title: string;
  description?: string;
  /** Offered only between these HHMM times every day; omitted = the branch's opening hours. */
  hours?: [number, number];
  categories: { title: string; items: DemoItem[] }[];
}
interface DemoMenu {
  brand: string;
  money: Money;
  groups: DemoGroup[];
  sections: DemoSection[];
}

const KOPI_KITA: DemoMenu = {
  brand: 'kopi-kita',
  money: 'IDR',
  groups: [
    {
      key: 'size',
      title: 'Ukuran',
      min: 1,
      max: 1,
      modifiers: [
        ['Regular', 'KK-MOD-REG', 0],
        ['Large', 'KK-MOD-LRG', 6000],
      ],
    },
    {
      key: 'sugar',
      title: 'Tingkat gula',
      min: 1,
      max: 1,
      modifiers: [
        ['Normal', 'KK-MOD-SUGAR-N', 0],
        ['Less sugar', 'KK-MOD-SUGAR-L', 0],
        ['Tanpa gula', 'KK-MOD-SUGAR-0', 0],
      ],
    },
    {
      key: 'milk',
      title: 'Pilihan susu',
      min: 0,
      max: 1,
      modifiers: [
        ['Oat milk', 'KK-MOD-OAT', 8000],
        ['Almond milk', 'KK-MOD-ALMOND', 8000],
        ['Extra fresh milk', 'KK-MOD-MILK', 5000],
      ],
    },
    {
      key: 'extras',
      title: 'Tambahan',
      min: 0,
      max: 2,
      modifiers: [
        ['Extra espresso shot', 'KK-MOD-SHOT', 7000],
        ['Sirup gula aren', 'KK-MOD-AREN', 4000],
        ['Sirup vanilla', 'KK-MOD-VANILLA', 5000],
      ],
    },
  ],
  sections: [
    {
      title: 'Kopi',
      description: 'Espresso-based and manual brew, beans roasted in Bandung',
      categories: [
        {
          title: 'Kopi Susu',
          items: [
            [
              'Es Kopi Susu Kita',
              'KK-EKS',
              25000,
              'House blend, fresh milk, gula aren',
              ['size', 'sugar', 'milk', 'extras'],
            ],
            ['Es Kopi Susu Pandan', 'KK-EKP', 28000, 'With house pandan syrup', ['size', 'sugar', 'milk']],
            [
              'Es Kopi Susu Regal',
              'KK-EKR',
              30000,
              'Topped with crushed Regal biscuits',
              ['size', 'sugar', 'milk'],
            ],
            [
              'Es Kopi Susu Rum',
              'KK-EKRUM',
              29000,
              'Rum-flavoured syrup, no alcohol',
              ['size', 'sugar', 'milk'],
            ],
            ['Kopi Susu Panas', 'KK-KSP', 23000, undefined, ['sugar', 'milk']],
            ['Es Kopi Susu 1 Liter', 'KK-EKS-1L', 95000, 'Bottle for sharing, serves 4–5', ['sugar']],
          ],
        },
        {
          title: 'Espresso Bar',
          items: [
            ['Espresso', 'KK-ESP', 20000, 'Double shot', ['extras']],
            ['Americano', 'KK-AME', 24000, undefined, ['size', 'extras']],
            ['Cappuccino', 'KK-CAP', 30000, undefined, ['size', 'milk', 'extras']],
            ['Caffè Latte', 'KK-LAT', 32000, undefined, ['size', 'sugar', 'milk', 'extras']],
            ['Flat White', 'KK-FW', 32000, undefined, ['milk']],
            ['Mocha', 'KK-MOC', 35000, undefined, ['size', 'sugar', 'milk']],
            ['Caramel Macchiato', 'KK-CMA', 36000, undefined, ['size', 'milk']],
          ],
        },
        {
          title: 'Manual Brew',
          items: [
            ['V60 Gayo Aceh', 'KK-V60-GAYO', 35000, 'Fruity, winey, natural process'],
            ['V60 Kintamani Bali', 'KK-V60-KINT', 35000, 'Citrus, brown sugar'],
            [
              'Kopi Tubruk Toraja',
              'KK-TUBRUK',
              22000,
              'Traditional unfiltered, with gula aren on the side',
              ['sugar'],
            ],
            ['Japanese Iced Coffee', 'KK-JIC', 38000, 'Flores Bajawa, brewed over ice'],
          ],
        },
      ],
    },
    {
      title: 'Non-Kopi',
      categories: [
        {
          title: 'Teh & Coklat',
          items: [
            ['Es Teh Manis', 'KK-ETM', 12000, undefined, ['size', 'sugar']],
            ['Teh Tarik', 'KK-TTR', 22000, undefined, ['size', 'sugar']],
            ['Matcha Latte', 'KK-MAT', 34000, undefined, ['size', 'sugar', 'milk']],
            ['Coklat Panas', 'KK-CKP', 28000, undefined, ['sugar', 'milk']],
            ['Es Coklat Regal', 'KK-ECR', 32000, undefined, ['size', 'milk']],
          ],
        },
      ],
    },
    {
      title: 'Makanan',
      description: 'Baked every morning; served until 15:00',
      hours: [700, 1500],
      categories: [
        {
          title: 'Roti & Pastry',
          items: [
            ['Croissant Butter', 'KK-CRO', 28000],
            ['Pain au Chocolat', 'KK-PAC', 32000],
            ['Roti Bakar Srikaya', 'KK-RBS', 25000, 'Toasted bread with kaya and butter'],
            ['Banana Bread', 'KK-BAN', 27000],
            ['Cinnamon Roll', 'KK-CIN', 30000],
            ['Sandwich Tuna Melt', 'KK-TUNA', 45000],
          ],
        },
        {
          title: 'Snack',
          items: [
            ['Pisang Goreng Keju', 'KK-PGK', 25000, 'Fried banana, cheese, condensed milk'],
            ['Tahu Cabe Garam', 'KK-TCG', 23000],
            ['Kentang Goreng', 'KK-FRIES', 22000],
            ['Cireng Rujak', 'KK-CIRENG', 20000],
          ],
        },
      ],
    },
  ],
};

const NASI_NUSANTARA: DemoMenu = {
  brand: 'nasi-nusantara',
  money: 'IDR',
  groups: [
    {
      key: 'spice',
      title: 'Level pedas',
      min: 1,
      max: 1,
      modifiers: [
        ['Tidak pedas', 'NN-MOD-P0', 0],
        ['Sedang', 'NN-MOD-P1', 0],
        ['Pedas', 'NN-MOD-P2', 0],
        ['Extra pedas', 'NN-MOD-P3', 2000],
      ],
    },
    {
      key: 'toppings',
      title: 'Tambahan',
      min: 0,
      max: 3,
      modifiers: [
        ['Telur mata sapi', 'NN-MOD-TELUR', 5000],
        ['Kerupuk udang', 'NN-MOD-KERUPUK', 3000],
        ['Tempe goreng', 'NN-MOD-TEMPE', 4000],
        ['Sambal matah', 'NN-MOD-MATAH', 3000],
        ['Nasi tambah', 'NN-MOD-NASI', 6000],
      ],
    },
    {
      key: 'rice',
      title: 'Pilihan nasi',
      min: 1,
      max: 1,
      modifiers: [
        ['Nasi putih', 'NN-MOD-PUTIH', 0],
        ['Nasi uduk', 'NN-MOD-UDUK', 3000],
        ['Nasi merah', 'NN-MOD-MERAH', 4000],
      ],
    },
  ],
  sections: [
    {
      title: 'Makan siang & malam',
      categories: [
        {
          title: 'Nasi Goreng',
          items: [
            [
              'Nasi Goreng Kampung',
              'NN-NGK',
              35000,
              'With fried egg, kerupuk and acar',
              ['spice', 'toppings'],
            ],
            ['Nasi Goreng Seafood', 'NN-NGS', 48000, undefined, ['spice', 'toppings']],
            ['Nasi Goreng Kambing', 'NN-NGKB', 52000, 'Betawi style, goat', ['spice', 'toppings']],
            ['Nasi Goreng Petai', 'NN-NGP', 40000, undefined, ['spice', 'toppings']],
            ['Nasi Goreng Hijau', 'NN-NGH', 38000, 'Green chilli sambal', ['spice', 'toppings']],
          ],
        },
        {
          title: 'Nasi Campur & Rames',
          items: [
            ['Nasi Campur Bali', 'NN-NCB', 55000, 'Sate lilit, ayam betutu, lawar, sambal matah', ['spice']],
            ['Nasi Rames Jawa', 'NN-NRJ', 42000, undefined, ['spice', 'toppings']],
            ['Nasi Uduk Betawi', 'NN-NUB', 38000, undefined, ['spice', 'toppings']],
            ['Nasi Liwet Sunda', 'NN-NLS', 45000, undefined, ['spice']],
            ['Nasi Kuning Manado', 'NN-NKM', 40000, undefined, ['spice', 'toppings']],
          ],
        },
        {
          title: 'Ayam & Bebek',
          items: [
            ['Ayam Bakar Taliwang', 'NN-ABT', 52000, undefined, ['spice', 'rice', 'toppings']],
            [
              'Ayam Penyet',
              'NN-APN',
              42000,
              'Smashed fried chicken, sambal terasi',
              ['spice', 'rice', 'toppings'],
            ],
            ['Ayam Geprek', 'NN-AGP', 35000, undefined, ['spice', 'rice', 'toppings']],
            ['Ayam Goreng Kalasan', 'NN-AGK', 45000, undefined, ['rice', 'toppings']],
            ['Bebek Goreng Madura', 'NN-BGM', 65000, undefined, ['spice', 'rice']],
            ['Sate Ayam Madura (10 tusuk)', 'NN-SAM', 45000, 'Peanut sauce, lontong or rice', ['rice']],
          ],
        },
        {
          title: 'Mie',
          items: [
            ['Mie Goreng Jawa', 'NN-MGJ', 36000, undefined, ['spice', 'toppings']],
            ['Mie Ayam Bakso', 'NN-MAB', 34000, undefined, ['spice', 'toppings']],
            ['Kwetiau Goreng', 'NN-KWG', 38000, undefined, ['spice', 'toppings']],
            ['Bakmi Godog', 'NN-BMG', 36000, 'Javanese noodle soup', ['spice']],
          ],
        },
        {
          title: 'Sup & Soto',
          items: [
            ['Soto Ayam Lamongan', 'NN-SAL', 35000, undefined, ['rice']],
            ['Soto Betawi', 'NN-SBT', 48000, 'Beef in coconut milk broth', ['rice']],
            ['Rawon Surabaya', 'NN-RWN', 50000, 'Black keluak beef soup', ['rice']],
            ['Sop Buntut', 'NN-SBN', 85000, 'Oxtail soup', ['rice']],
          ],
        },
      ],
    },
    {
      title: 'Minuman',
      categories: [
        {
          title: 'Es & Jus',
          items: [
            ['Es Teh Manis', 'NN-ETM', 10000],
            ['Es Jeruk', 'NN-EJR', 15000],
            ['Es Cendol', 'NN-CDL', 22000],
            ['Es Campur', 'NN-ECP', 25000],
            ['Jus Alpukat', 'NN-JAL', 28000],
            ['Es Kelapa Muda', 'NN-EKM', 25000],
          ],
        },
      ],
    },
  ],
};

const SEN_LEK: DemoMenu = {
  brand: 'sen-lek',
  money: 'THB',
  groups: [
    {
      key: 'noodle',
      title: 'Noodle type',
      min: 1,
      max: 1,
      modifiers: [
        ['Sen lek (thin rice noodles)', 'SL-MOD-SENLEK', 0],
        ['Sen yai (wide rice noodles)', 'SL-MOD-SENYAI', 0],
        ['Ba mee (egg noodles)', 'SL-MOD-BAMEE', 10],
        ['Woon sen (glass noodles)', 'SL-MOD-WOONSEN', 5],
      ],
    },
    {
      key: 'spice',
      title: 'Spice level',
      min: 1,
      max: 1,
      modifiers: [
        ['Not spicy', 'SL-MOD-S0', 0],
        ['Mild', 'SL-MOD-S1', 0],
        ['Thai spicy', 'SL-MOD-S2', 0],
      ],
    },
    {
      key: 'addons',
      title: 'Add-ons',
      min: 0,
      max: 3,
      modifiers: [
        ['Extra pork balls', 'SL-MOD-BALLS', 20],
        ['Soft-boiled egg', 'SL-MOD-EGG', 15],
        ['Crispy pork belly', 'SL-MOD-MOOKROB', 30],
        ['Extra noodles', 'SL-MOD-NOODLES', 15],
      ],
    },
  ],
  sections: [
    {
      title: 'Noodles',
      categories: [
        {
          title: 'Boat noodles (kuay teow reua)',
          items: [
            [
              'Pork boat noodles',
              'SL-BOAT-PORK',
              60,
              'Rich blood-thickened broth',
              ['noodle', 'spice', 'addons'],
            ],
            ['Beef boat noodles', 'SL-BOAT-BEEF', 70, undefined, ['noodle', 'spice', 'addons']],
            ['Braised beef boat noodles', 'SL-BOAT-BRAISED', 90, undefined, ['noodle', 'spice', 'addons']],
            ['Boat noodles set (5 bowls)', 'SL-BOAT-SET5', 250, 'Five small bowls, mixed', ['spice']],
            ['Dry boat noodles', 'SL-BOAT-DRY', 65, undefined, ['noodle', 'spice', 'addons']],
          ],
        },
        {
          title: 'Tom yum noodles',
          items: [
            ['Tom yum pork noodles', 'SL-TY-PORK', 70, undefined, ['noodle', 'spice', 'addons']],
            ['Tom yum seafood noodles', 'SL-TY-SEA', 120, undefined, ['noodle', 'spice', 'addons']],
            ['Tom yum clear soup noodles', 'SL-TY-CLEAR', 65, undefined, ['noodle', 'spice', 'addons']],
            ['Yen ta fo', 'SL-YENTAFO', 75, 'Pink fermented bean curd broth', ['noodle', 'spice', 'addons']],
          ],
        },
        {
          title: 'Dry noodles (haeng)',
          items: [
            ['Ba mee moo daeng haeng', 'SL-BMMD', 70, 'Egg noodles, red pork, wontons', ['spice', 'addons']],
            ['Kuay teow haeng sukhothai', 'SL-SUKHO', 70, undefined, ['noodle', 'spice', 'addons']],
            ['Ba mee poo', 'SL-BAMEEPOO', 140, 'Egg noodles with crab meat', ['spice']],
            ['Kuay jap nam sai', 'SL-KUAYJAP', 75, 'Rolled noodles, peppery broth', ['addons']],
            ['Khao soi gai', 'SL-KHAOSOI', 95, 'Northern curry noodles, chicken', ['spice', 'addons']],
          ],
        },
        {
          title: 'Stir-fried',
          items: [
            ['Pad thai goong', 'SL-PADTHAI', 120, 'River prawns, tamarind', ['spice', 'addons']],
            ['Pad see ew moo', 'SL-PADSEEEW', 80, undefined, ['noodle', 'addons']],
            ['Rad na moo', 'SL-RADNA', 80, undefined, ['noodle', 'addons']],
            ['Pad kee mao talay', 'SL-KEEMAO', 110, 'Drunken noodles, seafood', ['noodle', 'spice']],
            ['Kuay teow kua gai', 'SL-KUAGAI', 75, undefined, ['spice']],
            ['Pad woon sen', 'SL-PADWOONSEN', 70, undefined, ['spice', 'addons']],
          ],
        },
      ],
    },
    {
      title: 'Sides & drinks',
      categories: [
        {
          title: 'Sides',
          items: [
            ['Moo ping (3 skewers)', 'SL-MOOPING', 45],
            ['Crispy wontons', 'SL-WONTON', 50],
            ['Pork crackling', 'SL-KHAEPMOO', 35],
            ['Sticky rice', 'SL-STICKY', 15],
            ['Fish balls (5)', 'SL-FISHBALLS', 40],
          ],
        },
        {
          title: 'Drinks',
          items: [
            ['Thai iced tea', 'SL-CHAYEN', 45],
            ['Lemongrass iced tea', 'SL-TAKRAI', 40],
            ['Butterfly pea lime soda', 'SL-ANCHAN', 50],
            ['Longan juice', 'SL-LAMYAI', 40],
            ['Singha beer', 'SL-SINGHA', 90],
            ['Drinking water', 'SL-WATER', 15],
          ],
        },
      ],
    },
  ],
};

const KHANOM_WAAN: DemoMenu = {
  brand: 'khanom-waan',
  money: 'THB',
  groups: [
    {
      key: 'sweet',
      title: 'Sweetness',
      min: 1,
      max: 1,
      modifiers: [
        ['Normal', 'KW-MOD-SW-N', 0],
        ['Less sweet', 'KW-MOD-SW-L', 0],
        ['Extra sweet', 'KW-MOD-SW-X', 0],
      ],
    },
    {
      key: 'toppings',
      title: 'Toppings',
      min: 0,
      max: 3,
      modifiers: [
        ['Extra coconut cream', 'KW-MOD-CREAM', 10],
        ['Extra sticky rice', 'KW-MOD-STICKY', 20],
        ['Roasted mung beans', 'KW-MOD-BEANS', 10],
        ['Salted egg yolk sauce', 'KW-MOD-YOLK', 15],
        ['Vanilla ice cream scoop', 'KW-MOD-ICECREAM', 25],
      ],
    },
    {
      key: 'size',
      title: 'Size',
      min: 1,
      max: 1,
      modifiers: [
        ['Regular', 'KW-MOD-REG', 0],
        ['Large', 'KW-MOD-LRG', 20],
      ],
    },
  ],
  sections: [
    {
      title: 'Desserts',
      categories: [
        {
          title: 'Mango sticky rice',
          items: [
            ['Mango sticky rice', 'KW-MANGO', 120, 'Nam dok mai mango, coconut sticky rice', ['toppings']],
            ['Mango sticky rice, butterfly pea rice', 'KW-MANGO-BLUE', 130, undefined, ['toppings']],
            ['Mango sticky rice for two', 'KW-MANGO-2', 220, undefined, ['toppings']],
            ['Durian sticky rice', 'KW-DURIAN', 180, 'Seasonal Monthong durian', ['toppings']],
          ],
        },
        {
          title: 'Coconut & pandan',
          items: [
            ['Khanom krok (8 pieces)', 'KW-KROK', 60, 'Coconut rice pancakes'],
            ['Tub tim grob', 'KW-TUBTIM', 65, 'Water chestnut rubies in coconut milk', ['sweet']],
            ['Lod chong', 'KW-LODCHONG', 55, 'Pandan jelly noodles, coconut milk', ['sweet']],
            ['Bua loy', 'KW-BUALOY', 55, 'Rice flour balls in warm coconut milk', ['sweet', 'toppings']],
            ['Sangkaya fak thong', 'KW-SANGKAYA', 85, 'Pumpkin custard'],
            ['Khanom chan', 'KW-CHAN', 50, 'Layered pandan cake'],
          ],
        },
        {
          title: 'Bingsu & shaved ice',
          items: [
            ['Thai tea bingsu', 'KW-BS-THAITEA', 159, undefined, ['size', 'toppings']],
            ['Mango bingsu', 'KW-BS-MANGO', 179, undefined, ['size', 'toppings']],
            ['Coconut bingsu', 'KW-BS-COCO', 159, undefined, ['size', 'toppings']],
            ['Chocolate banana bingsu', 'KW-BS-CHOC', 169, undefined, ['size', 'toppings']],
            ['Nam kang sai', 'KW-NAMKANGSAI', 69, 'Shaved ice with mixed toppings', ['sweet', 'toppings']],
            ['Taro bingsu', 'KW-BS-TARO', 169, undefined, ['size', 'toppings']],
          ],
        },
        {
          title: 'Custards & cakes',
          items: [
            ['Coconut custard in a young coconut', 'KW-COCOCUSTARD', 95],
            ['Thai tea crepe cake', 'KW-CREPE', 120],
            ['Pandan chiffon cake', 'KW-CHIFFON', 90],
            ['Roti gluay (banana roti)', 'KW-ROTI', 70, undefined, ['sweet', 'toppings']],
            ['Khanom tuay', 'KW-TUAY', 45, 'Steamed coconut cups'],
          ],
        },
      ],
    },
    {
      title: 'Drinks',
      categories: [
        {
          title: 'Thai tea & coffee',
          items: [
            ['Cha yen (Thai iced tea)', 'KW-CHAYEN', 55, undefined, ['sweet', 'size']],
            ['Cha manao (lime tea)', 'KW-CHAMANAO', 50, undefined, ['sweet', 'size']],
            ['Oliang', 'KW-OLIANG', 50, 'Thai black iced coffee', ['sweet', 'size']],
            ['Cha nom yen (milk tea)', 'KW-CHANOM', 55, undefined, ['sweet', 'size']],
            ['Hot Thai tea', 'KW-CHAROM', 45, undefined, ['sweet']],
            ['Green tea latte', 'KW-GREENTEA', 65, undefined, ['sweet', 'size']],
          ],
        },
        {
          title: 'Smoothies',
          items: [
            ['Mango smoothie', 'KW-SM-MANGO', 75, undefined, ['size']],
            ['Coconut smoothie', 'KW-SM-COCO', 70, undefined, ['size']],
            ['Watermelon smoothie (taengmo pan)', 'KW-SM-MELON', 65, undefined, ['size']],
            ['Passion fruit soda', 'KW-PASSION', 60],
          ],
        },
      ],
    },
  ],
};

const MENUS: Record<string, DemoMenu> = {
  [KOPI_KITA.brand]: KOPI_KITA,
  [NASI_NUSANTARA.brand]: NASI_NUSANTARA,
  [SEN_LEK.brand]: SEN_LEK,
  [KHANOM_WAAN.brand]: KHANOM_WAAN,
};

// Providers each market prices on (ids of reference-data PROVIDERS): marketplaces charge more.
const MARKETS: Record<Money, { direct: number[]; marketplace: number[]; mark_up: number; round: number }> = {
  // GrabFood, GoFood, ShopeeFood at +20 % rounded to Rp 500; klikit, web ordering, kiosk at shop price.
  IDR: { direct: [7, 8, 9], marketplace: [1, 2, 3], mark_up: 1.2, round: 500 },
  // GrabFood, LINE MAN at +15 % rounded to ฿5; klikit, web ordering, kiosk at shop price.
  THB: { direct: [7, 8, 9], marketplace: [1, 5], mark_up: 1.15, round: 5 },
};

const fmt = (money: Money, n: number) => (money === 'IDR' ? String(n) : n.toFixed(2));

function priced(money: Money, base: number) {
  const m = MARKETS[money];
  const marked = base === 0 ? 0 : Math.round((base * m.mark_up) / m.round) * m.round;
  const prices: Record<string, string> = {};
  for (const p of m.direct) prices[String(p)] = fmt(money, base);
  for (const p of m.marketplace) prices[String(p)] = fmt(money, marked);
  return { prices, base: fmt(money, base), marked: fmt(money, marked) };
}

function hours(from: number, to: number) {
  const day = { slots: [{ startTime: from, endTime: to }] };
  return { '0': day, '1': day, '2': day, '3': day, '4': day, '5': day, '6': day };
}

/** Authors, syncs and publishes the demo menu of every demo brand; adds a little live stock state. */
export async function seedDemoMenus(services: Services, businesses: SeededBusiness[]): Promise<void> {
  const now = services.now();
  await services.store.write(async (tx) => {
    for (const biz of businesses) {
      const t = tx.tenant(biz.id);
      // Price tiers: the first group is the in-store price, the second the delivery-app price.
      const groups = (await t.priceGroups.list()).map((g) => g.id);
      const skuItems = new Map<string, number>();
      for (const brand of biz.brands) {
        const menu = MENUS[brand.key];
        if (!menu) continue;
        const groupIds = new Map<string, number>();
        for (const g of menu.groups) {
          const group = await createModifierGroup(
            t,
            { brand_id: brand.id, title: g.title, min: g.min, max: g.max },
            now,
          );
          const mods: number[] = [];
          for (const [title, sku, price] of g.modifiers) {
            const mod = await createItem(
              t,
              {
                brand_id: brand.id,
                title,
                partner_item_id: sku,
                prices: priced(menu.money, price).prices,
                onlyModifier: true,
              },
              now,
            );
            mods.push(mod.id);
          }
          await changeLinks(t, 'groupModifiers', 'link', group.id, mods);
          groupIds.set(g.key, group.id);
        }
        for (const s of menu.sections) {
          const section = await createSection(
            t,
            {
              brand_id: brand.id,
              title: s.title,
              description: s.description,
              availableTimes: s.hours ? hours(...s.hours) : undefined,
            },
            now,
          );
          for (const c of s.categories) {
            const category = await createCategory(t, { brand_id: brand.id, title: c.title }, now);
            await changeLinks(t, 'sectionCategories', 'link', section.id, [category.id]);
            for (const [title, sku, base, description, mods] of c.items) {
              const p = priced(menu.money, base);
              const groupPrices: Record<string, string> = {};
              if (groups[0] !== undefined) groupPrices[String(groups[0])] = p.base;
              if (groups[1] !== undefined) groupPrices[String(groups[1])] = p.marked;
              const item = await createItem(
                t,
                {
                  brand_id: brand.id,
                  title,
                  partner_item_id: sku,
                  prices: p.prices,
                  onlyModifier: false,
                  description,
                  groupPrices,
                },
                now,
              );
              skuItems.set(sku, item.id);
              await changeLinks(t, 'itemCategories', 'link', item.id, [category.id]);
              for (const key of mods ?? [])
                await changeLinks(t, 'groupItems', 'link', groupIds.get(key)!, [item.id]);
            }
          }
        }
        await syncMenu(t, { brand_id: brand.id }, now);
        await publishMenu(t, { brand_id: brand.id }, now);
      }

      // A little live state, so `menu get` and the OOS history have something to show: the
      // first branch counts stock of a limited item and has run out of a seasonal one.
      const branch = biz.branches[0];
      if (!branch) continue;
      const by = { actor: 'demo-seed', now };
      const limited = ['KK-EKS-1L', 'SL-BOAT-SET5'].filter((s) => skuItems.has(s));
      const seasonal = ['KK-V60-KINT', 'SL-BAMEEPOO'].filter((s) => skuItems.has(s));
      if (limited.length) {
        await applyToSkus(
          t,
          by,
          branch.id,
          'stock',
          limited.map((sku) => ({ sku, change: stockCount(12) })),
        );
      }
      for (const sku of seasonal) {
        await applyToSkus(t, by, branch.id, 'availability', [{ sku, change: availability(false) }]);
      }
    }
  });
}
