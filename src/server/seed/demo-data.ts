// Data for `partner local start --seed demo`: two businesses so tenancy can be shown. Ids are
// assigned by the store at seed time; cross-references here use kebab-case keys instead.
import type { City, Country, Currency, Language } from '../domain/reference-data.js';

interface DemoBrand {
  key: string;
  title: string;
  /** Relative image paths, as on the wire (spec §2.4). */
  logo: string;
  banner: string;
}
interface DemoPriceGroup {
  title: string;
  description: string;
}
interface DemoBranch {
  key: string;
  /** Keys of this business's brands that the branch carries. */
  brand_keys: string[];
  /** Writable Branch wire fields (spec §2.5), including pass-through extras. */
  fields: Record<string, unknown>;
}
interface DemoBusiness {
  key: string;
  title: string;
  address: string;
  logo: string;
  brands: DemoBrand[];
  branches: DemoBranch[];
  price_groups: DemoPriceGroup[];
}

interface TimeSlot {
  startTime: number;
  endTime: number;
}
interface DaySchedule {
  disabled?: boolean;
  slots: TimeSlot[];
}
type Weekday = '0' | '1' | '2' | '3' | '4' | '5' | '6';
type AvailableTimes = Record<Weekday, DaySchedule>;

// A type alias (not an interface) so it stays assignable to Record<string, unknown>; the named
// keys make the compiler check that every demo branch carries the full writable set.
type BranchFields = {
  title: string;
  address: string;
  phone: string;
  secondary_phone: string | null;
  lat: number;
  lon: number;
  country_id: Country['id'];
  city_id: City['id'];
  currency_id: Currency['id'];
  language_id: Language['id'];
  time_zone: string | null;
  opening_time: number | null;
  closing_time: number | null;
  availability_mask: number;
  day_availability: number[];
  available_times: AvailableTimes;
  preparation_time: number;
  order_cleanup_time: number;
  subscription_type: number;
  is_busy: boolean;
  is_demo: boolean;
  is_churned: boolean;
  is_shift_enabled: boolean;
  is_vat_registered: boolean;
  is_driver_progress_enabled: boolean;
  marketplace_enabled: boolean;
  open_order_enabled: boolean;
  post_payment_enabled: boolean;
  pre_payment_enabled: boolean;
  pay_and_complete_enabled: boolean;
  scheduled_order_enabled: boolean;
  manual_order_auto_accept_enabled: boolean;
  printer_routing_enabled: boolean;
  popular_items_enabled: boolean;
  feature_flags: string[];
  google_map_link: string | null;
  [extra: string]: unknown;
};

const WEEKDAYS: readonly Weekday[] = ['0', '1', '2', '3', '4', '5', '6'];

function slot(startTime: number, endTime: number): TimeSlot {
  return { startTime, endTime };
}

/** Same slots every day, with per-day overrides (keys '0' = Sunday … '6' = Saturday). */
function week(slots: TimeSlot[], overrides: Partial<AvailableTimes> = {}): AvailableTimes {
  const day = (d: Weekday): DaySchedule => overrides[d] ?? { slots };
  return {
    '0': day('0'),
    '1': day('1'),
    '2': day('2'),
    '3': day('3'),
    '4': day('4'),
    '5': day('5'),
    '6': day('6'),
  };
}

/** A darkened day still needs a slot (spec §2.6); keeping the usual hours is what UIs send. */
function closed(slots: TimeSlot[]): DaySchedule {
  return { disabled: true, slots };
}

type Hours = Pick<
  BranchFields,
  'opening_time' | 'closing_time' | 'availability_mask' | 'day_availability' | 'available_times'
>;

// Derives the summary fields from the schedule so mask, day list and times can never disagree.
function hours(available_times: AvailableTimes): Hours {
  const day_availability: number[] = [];
  let availability_mask = 0;
  let opening: number | null = null;
  let closing: number | null = null;
  for (let d = 0; d < WEEKDAYS.length; d++) {
    const day = available_times[WEEKDAYS[d]!];
    if (day.disabled) continue;
    day_availability.push(d);
    availability_mask |= 1 << d;
    for (const s of day.slots) {
      opening = opening === null ? s.startTime : Math.min(opening, s.startTime);
      closing = closing === null ? s.endTime : Math.max(closing, s.endTime);
    }
  }
  return {
    opening_time: opening,
    closing_time: closing,
    availability_mask,
    day_availability,
    available_times,
  };
}

function mapLink(lat: number, lon: number): string {
  return `https://www.google.com/maps/search/?api=1&query=${lat},${lon}`;
}

// Indonesian restaurants charge the regional restaurant tax (PB1, 10%) rather than PPN, added
// on top of menu prices; BIR settings only apply in the Philippines.
const INDONESIA_TAX = {
  bir_config: null,
  bir_config_enabled: false,
  business_vat_label: 'PB1',
  business_vat_percentage: 10,
  vat_percentage: 10,
  vat_included: false,
  vat_number: '01.234.567.8-012.000',
  receipt_custom_title: 'Struk Pembayaran',
  invoice_custom_title: 'Faktur',
};

// Thai menu prices include 7% VAT; the receipt doubles as an abbreviated tax invoice.
const THAILAND_TAX = {
  bir_config: null,
  bir_config_enabled: false,
  business_vat_label: 'VAT',
  business_vat_percentage: 7,
  vat_percentage: 7,
  vat_included: true,
  vat_number: '0105565012345',
  receipt_custom_title: 'ใบเสร็จรับเงิน/ใบกำกับภาษีอย่างย่อ',
  invoice_custom_title: 'ใบกำกับภาษีเต็มรูป',
};

function branch(key: string, brand_keys: string[], fields: BranchFields): DemoBranch {
  return { key, brand_keys, fields };
}

const KOPI_KITA_GROUP: DemoBusiness = {
  key: 'kopi-kita-group',
  title: 'PT Kopi Kita Nusantara',
  address: 'Jl. Senopati No. 45, Kebayoran Baru, Jakarta Selatan 12190, Indonesia',
  logo: 'businesses/kopi-kita-group/logo.png',
  brands: [
    {
      key: 'kopi-kita',
      title: 'Kopi Kita',
      logo: 'brands/kopi-kita/logo.png',
      banner: 'brands/kopi-kita/banner.jpg',
    },
    {
      key: 'nasi-nusantara',
      title: 'Nasi Nusantara',
      logo: 'brands/nasi-nusantara/logo.png',
      banner: 'brands/nasi-nusantara/banner.jpg',
    },
  ],
  branches: [
    branch('kopi-kita-senopati', ['kopi-kita', 'nasi-nusantara'], {
      title: 'Kopi Kita Senopati',
      address: 'Jl. Senopati No. 45, Selong, Kebayoran Baru, Jakarta Selatan 12190',
      phone: '+622127881234',
      secondary_phone: '+6281219870001',
      lat: -6.2325,
      lon: 106.8087,
      country_id: 1,
      city_id: 101,
      currency_id: 1,
      language_id: '2',
      time_zone: 'Asia/Jakarta',
      // Open later on Friday and Saturday nights.
      ...hours(
        week([slot(700, 2200)], { '5': { slots: [slot(700, 2300)] }, '6': { slots: [slot(700, 2300)] } }),
      ),
      preparation_time: 10,
      order_cleanup_time: 120,
      subscription_type: 2,
      is_busy: false,
      is_demo: true,
      is_churned: false,
      is_shift_enabled: true,
      is_vat_registered: true,
      is_driver_progress_enabled: true,
      marketplace_enabled: true,
      open_order_enabled: true,
      post_payment_enabled: true,
      pre_payment_enabled: true,
      pay_and_complete_enabled: false,
      scheduled_order_enabled: true,
      manual_order_auto_accept_enabled: false,
      printer_routing_enabled: true,
      popular_items_enabled: true,
      feature_flags: ['kds', 'table_qr_ordering', 'inventory', 'loyalty'],
      google_map_link: mapLink(-6.2325, 106.8087),
      ...INDONESIA_TAX,
      service_charge_percentage: 5,
    }),
    branch('nasi-nusantara-kemang', ['nasi-nusantara', 'kopi-kita'], {
      title: 'Nasi Nusantara Kemang',
      address: 'Jl. Kemang Raya No. 12, Bangka, Mampang Prapatan, Jakarta Selatan 12730',
      phone: '+6281311224455',
      secondary_phone: null,
      lat: -6.2606,
      lon: 106.8142,
      country_id: 1,
      city_id: 101,
      currency_id: 1,
      language_id: '2',
      time_zone: 'Asia/Jakarta',
      // Split lunch/dinner service on weekdays, continuous on weekends.
      ...hours(
        week([slot(1030, 1430), slot(1700, 2130)], {
          '0': { slots: [slot(1000, 2200)] },
          '6': { slots: [slot(1000, 2200)] },
        }),
      ),
      preparation_time: 20,
      order_cleanup_time: 180,
      subscription_type: 2,
      is_busy: false,
      is_demo: true,
      is_churned: false,
      is_shift_enabled: true,
      is_vat_registered: true,
      is_driver_progress_enabled: true,
      marketplace_enabled: true,
      open_order_enabled: false,
      post_payment_enabled: false,
      pre_payment_enabled: true,
      pay_and_complete_enabled: false,
      scheduled_order_enabled: true,
      manual_order_auto_accept_enabled: true,
      printer_routing_enabled: true,
      popular_items_enabled: true,
      feature_flags: ['kds', 'inventory'],
      google_map_link: mapLink(-6.2606, 106.8142),
      ...INDONESIA_TAX,
      service_charge_percentage: 0,
    }),
    branch('kopi-kita-dago', ['kopi-kita', 'nasi-nusantara'], {
      title: 'Kopi Kita Dago',
      address: 'Jl. Ir. H. Juanda No. 88, Dago, Coblong, Bandung 40135',
      phone: '+62222501234',
      secondary_phone: '+6282118765432',
      lat: -6.8868,
      lon: 107.6135,
      country_id: 1,
      city_id: 102,
      currency_id: 1,
      language_id: '2',
      time_zone: 'Asia/Jakarta',
      // Closed on Mondays.
      ...hours(week([slot(800, 2100)], { '1': closed([slot(800, 2100)]) })),
      preparation_time: 12,
      order_cleanup_time: 120,
      subscription_type: 1,
      is_busy: false,
      is_demo: true,
      is_churned: false,
      is_shift_enabled: false,
      is_vat_registered: true,
      is_driver_progress_enabled: false,
      marketplace_enabled: true,
      open_order_enabled: false,
      post_payment_enabled: false,
      pre_payment_enabled: true,
      pay_and_complete_enabled: true,
      scheduled_order_enabled: false,
      manual_order_auto_accept_enabled: false,
      printer_routing_enabled: false,
      popular_items_enabled: true,
      feature_flags: ['inventory'],
      google_map_link: mapLink(-6.8868, 107.6135),
      ...INDONESIA_TAX,
      service_charge_percentage: 0,
    }),
  ],
  price_groups: [
    { title: 'Dine-in & takeaway', description: 'In-store menu prices, before PB1 tax and service charge' },
    {
      title: 'Delivery apps',
      description: 'Prices on GrabFood, GoFood and ShopeeFood, marked up about 20% to cover commission',
    },
  ],
};

const BAAN_SEN: DemoBusiness = {
  key: 'baan-sen',
  title: 'Baan Sen Co., Ltd.',
  address: '12 Soi Phahonyothin 7, Phaya Thai, Bangkok 10400, Thailand',
  logo: 'businesses/baan-sen/logo.png',
  brands: [
    {
      key: 'sen-lek',
      title: 'Sen Lek Noodle Bar',
      logo: 'brands/sen-lek/logo.png',
      banner: 'brands/sen-lek/banner.jpg',
    },
    {
      key: 'khanom-waan',
      title: 'Khanom Waan Desserts',
      logo: 'brands/khanom-waan/logo.png',
      banner: 'brands/khanom-waan/banner.jpg',
    },
  ],
  branches: [
    branch('sen-lek-ari', ['sen-lek', 'khanom-waan'], {
      title: 'Sen Lek Ari',
      address: '12 Soi Phahonyothin 7 (Ari), Phaya Thai, Bangkok 10400',
      phone: '+6626171234',
      secondary_phone: '+66812345678',
      lat: 13.7797,
      lon: 100.5446,
      country_id: 2,
      city_id: 201,
      currency_id: 2,
      language_id: '6',
      time_zone: 'Asia/Bangkok',
      ...hours(week([slot(1000, 2100)])),
      preparation_time: 10,
      order_cleanup_time: 120,
      subscription_type: 2,
      is_busy: false,
      is_demo: true,
      is_churned: false,
      is_shift_enabled: true,
      is_vat_registered: true,
      is_driver_progress_enabled: true,
      marketplace_enabled: true,
      open_order_enabled: true,
      post_payment_enabled: true,
      pre_payment_enabled: true,
      pay_and_complete_enabled: false,
      scheduled_order_enabled: false,
      manual_order_auto_accept_enabled: true,
      printer_routing_enabled: true,
      popular_items_enabled: true,
      feature_flags: ['kds', 'table_qr_ordering', 'promptpay_qr'],
      google_map_link: mapLink(13.7797, 100.5446),
      ...THAILAND_TAX,
      service_charge_percentage: 0,
    }),
    branch('sen-lek-thonglor', ['sen-lek'], {
      title: 'Sen Lek Thonglor',
      address: '55 Soi Sukhumvit 55 (Thong Lo), Khlong Tan Nuea, Watthana, Bangkok 10110',
      phone: '+6623921188',
      secondary_phone: null,
      lat: 13.7325,
      lon: 100.5836,
      country_id: 2,
      city_id: 201,
      currency_id: 2,
      language_id: '6',
      time_zone: 'Asia/Bangkok',
      // Lunch and dinner service every day; late dinner on Friday and Saturday.
      ...hours(
        week([slot(1100, 1430), slot(1730, 2200)], {
          '5': { slots: [slot(1100, 1430), slot(1730, 2359)] },
          '6': { slots: [slot(1100, 1430), slot(1730, 2359)] },
        }),
      ),
      preparation_time: 15,
      order_cleanup_time: 240,
      subscription_type: 2,
      is_busy: false,
      is_demo: true,
      is_churned: false,
      is_shift_enabled: true,
      is_vat_registered: true,
      is_driver_progress_enabled: true,
      marketplace_enabled: true,
      open_order_enabled: true,
      post_payment_enabled: true,
      pre_payment_enabled: false,
      pay_and_complete_enabled: false,
      scheduled_order_enabled: true,
      manual_order_auto_accept_enabled: false,
      printer_routing_enabled: true,
      popular_items_enabled: false,
      feature_flags: ['kds', 'promptpay_qr'],
      google_map_link: mapLink(13.7325, 100.5836),
      ...THAILAND_TAX,
      service_charge_percentage: 10,
    }),
    branch('khanom-waan-nimman', ['khanom-waan'], {
      title: 'Khanom Waan Nimman',
      address: '9 Nimmanhaemin Soi 11, Suthep, Mueang Chiang Mai, Chiang Mai 50200',
      phone: '+6653894123',
      secondary_phone: null,
      lat: 18.7985,
      lon: 98.9675,
      country_id: 2,
      city_id: 202,
      currency_id: 2,
      language_id: '6',
      time_zone: 'Asia/Bangkok',
      // Closed on Wednesdays.
      ...hours(week([slot(1200, 2100)], { '3': closed([slot(1200, 2100)]) })),
      preparation_time: 8,
      order_cleanup_time: 90,
      subscription_type: 1,
      is_busy: false,
      is_demo: true,
      is_churned: false,
      is_shift_enabled: false,
      is_vat_registered: true,
      is_driver_progress_enabled: false,
      marketplace_enabled: true,
      open_order_enabled: false,
      post_payment_enabled: false,
      pre_payment_enabled: true,
      pay_and_complete_enabled: true,
      scheduled_order_enabled: false,
      manual_order_auto_accept_enabled: true,
      printer_routing_enabled: false,
      popular_items_enabled: true,
      feature_flags: ['promptpay_qr'],
      google_map_link: mapLink(18.7985, 98.9675),
      ...THAILAND_TAX,
      service_charge_percentage: 0,
    }),
  ],
  price_groups: [
    { title: 'Standard', description: 'Shop prices, 7% VAT included' },
    { title: 'Marketplace', description: 'Prices on GrabFood and LINE MAN, about 15% above shop prices' },
  ],
};

export const DEMO_BUSINESSES: readonly DemoBusiness[] = Object.freeze([KOPI_KITA_GROUP, BAAN_SEN]);
