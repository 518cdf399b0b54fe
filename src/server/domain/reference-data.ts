// Reference dictionaries served by the local server (spec §2.9: "not shown", so we may
// choose). Ids are part of the wire contract once integrators store them: append, never renumber.

export interface Currency {
  id: number;
  code: string;
  symbol: string;
  title: string;
  /** Minor units used when pricing menus; IDR, VND, KHR, JPY and TWD are priced in whole units in practice. */
  decimals: number;
}
export interface Country {
  id: number;
  code: string;
  title: string;
  currency_id: number;
  phone_code: string;
  language_id: string;
  time_zone: string;
}
export interface City {
  id: number;
  country_id: number;
  title: string;
  time_zone: string;
}
/** `id` is a string because branch records carry `language_id` as a string. */
export interface Language {
  id: string;
  code: string;
  title: string;
}
export interface Provider {
  id: number;
  title: string;
  type: 'marketplace' | 'aggregator' | 'direct';
  /** ISO 3166-1 alpha-2 codes of the countries where the provider operates. */
  countries: string[];
}
interface DictionaryRow {
  id: number;
  code: string;
  title: string;
}

export const CURRENCIES: readonly Currency[] = Object.freeze([
  { id: 1, code: 'IDR', symbol: 'Rp', title: 'Indonesian Rupiah', decimals: 0 },
  { id: 2, code: 'THB', symbol: '฿', title: 'Thai Baht', decimals: 2 },
  { id: 3, code: 'VND', symbol: '₫', title: 'Vietnamese Dong', decimals: 0 },
  { id: 4, code: 'MYR', symbol: 'RM', title: 'Malaysian Ringgit', decimals: 2 },
  { id: 5, code: 'PHP', symbol: '₱', title: 'Philippine Peso', decimals: 2 },
  { id: 6, code: 'SGD', symbol: 'S$', title: 'Singapore Dollar', decimals: 2 },
  { id: 7, code: 'KHR', symbol: '៛', title: 'Cambodian Riel', decimals: 0 },
  { id: 8, code: 'USD', symbol: '$', title: 'US Dollar', decimals: 2 },
  { id: 9, code: 'JPY', symbol: '¥', title: 'Japanese Yen', decimals: 0 },
  { id: 10, code: 'TWD', symbol: 'NT$', title: 'New Taiwan Dollar', decimals: 0 },
]);

// Ids follow LOCALES order in contract/order-statuses.ts.
export const LANGUAGES: readonly Language[] = Object.freeze([
  { id: '1', code: 'en', title: 'English' },
  { id: '2', code: 'id', title: 'Indonesian' },
  { id: '3', code: 'ja', title: 'Japanese' },
  { id: '4', code: 'km', title: 'Khmer' },
  { id: '5', code: 'ms', title: 'Malay' },
  { id: '6', code: 'th', title: 'Thai' },
  { id: '7', code: 'tl', title: 'Tagalog' },
  { id: '8', code: 'vi', title: 'Vietnamese' },
  { id: '9', code: 'zh', title: 'Chinese (Simplified)' },
  { id: '10', code: 'zh-tw', title: 'Chinese (Traditional)' },
]);

// PH and SG default to English: it is the working language of restaurant POS and receipts there.
export const COUNTRIES: readonly Country[] = Object.freeze([
  {
    id: 1,
    code: 'ID',
    title: 'Indonesia',
    currency_id: 1,
    phone_code: '+62',
    language_id: '2',
    time_zone: 'Asia/Jakarta',
  },
  {
    id: 2,
    code: 'TH',
    title: 'Thailand',
    currency_id: 2,
    phone_code: '+66',
    language_id: '6',
    time_zone: 'Asia/Bangkok',
  },
  {
    id: 3,
    code: 'VN',
    title: 'Vietnam',
    currency_id: 3,
    phone_code: '+84',
    language_id: '8',
    time_zone: 'Asia/Ho_Chi_Minh',
  },
  {
    id: 4,
    code: 'MY',
    title: 'Malaysia',
    currency_id: 4,
    phone_code: '+60',
    language_id: '5',
    time_zone: 'Asia/Kuala_Lumpur',
  },
  {
    id: 5,
    code: 'PH',
    title: 'Philippines',
    currency_id: 5,
    phone_code: '+63',
    language_id: '1',
    time_zone: 'Asia/Manila',
  },
  {
    id: 6,
    code: 'SG',
    title: 'Singapore',
    currency_id: 6,
    phone_code: '+65',
    language_id: '1',
    time_zone: 'Asia/Singapore',
  },
  {
    id: 7,
    code: 'KH',
    title: 'Cambodia',
    currency_id: 7,
    phone_code: '+855',
    language_id: '4',
    time_zone: 'Asia/Phnom_Penh',
  },
  {
    id: 8,
    code: 'JP',
    title: 'Japan',
    currency_id: 9,
    phone_code: '+81',
    language_id: '3',
    time_zone: 'Asia/Tokyo',
  },
  {
    id: 9,
    code: 'TW',
    title: 'Taiwan',
    currency_id: 10,
    phone_code: '+886',
    language_id: '10',
    time_zone: 'Asia/Taipei',
  },
]);

// City ids are country_id * 100 + n, so a city id never validates against the wrong country
// (the spec validates the (country_id, city_id) pair on branch create).
export const CITIES: readonly City[] = Object.freeze([
  { id: 101, country_id: 1, title: 'Jakarta', time_zone: 'Asia/Jakarta' },
  { id: 102, country_id: 1, title: 'Bandung', time_zone: 'Asia/Jakarta' },
  { id: 103, country_id: 1, title: 'Surabaya', time_zone: 'Asia/Jakarta' },
  { id: 104, country_id: 1, title: 'Medan', time_zone: 'Asia/Jakarta' },
  { id: 105, country_id: 1, title: 'Yogyakarta', time_zone: 'Asia/Jakarta' },
  // Bali is on WITA (UTC+8), not Jakarta time.
  { id: 106, country_id: 1, title: 'Denpasar', time_zone: 'Asia/Makassar' },

  { id: 201, country_id: 2, title: 'Bangkok', time_zone: 'Asia/Bangkok' },
  { id: 202, country_id: 2, title: 'Chiang Mai', time_zone: 'Asia/Bangkok' },
  { id: 203, country_id: 2, title: 'Phuket', time_zone: 'Asia/Bangkok' },
  { id: 204, country_id: 2, title: 'Khon Kaen', time_zone: 'Asia/Bangkok' },
  { id: 205, country_id: 2, title: 'Pattaya', time_zone: 'Asia/Bangkok' },

  { id: 301, country_id: 3, title: 'Ho Chi Minh City', time_zone: 'Asia/Ho_Chi_Minh' },
  { id: 302, country_id: 3, title: 'Hanoi', time_zone: 'Asia/Ho_Chi_Minh' },
  { id: 303, country_id: 3, title: 'Da Nang', time_zone: 'Asia/Ho_Chi_Minh' },
  { id: 304, country_id: 3, title: 'Hai Phong', time_zone: 'Asia/Ho_Chi_Minh' },

  { id: 401, country_id: 4, title: 'Kuala Lumpur', time_zone: 'Asia/Kuala_Lumpur' },
  { id: 402, country_id: 4, title: 'Petaling Jaya', time_zone: 'Asia/Kuala_Lumpur' },
  { id: 403, country_id: 4, title: 'George Town', time_zone: 'Asia/Kuala_Lumpur' },
  { id: 404, country_id: 4, title: 'Johor Bahru', time_zone: 'Asia/Kuala_Lumpur' },
  // IANA files Sabah and Sarawak under Asia/Kuching.
  { id: 405, country_id: 4, title: 'Kota Kinabalu', time_zone: 'Asia/Kuching' },

  { id: 501, country_id: 5, title: 'Manila', time_zone: 'Asia/Manila' },
  { id: 502, country_id: 5, title: 'Makati', time_zone: 'Asia/Manila' },
  { id: 503, country_id: 5, title: 'Quezon City', time_zone: 'Asia/Manila' },
  { id: 504, country_id: 5, title: 'Cebu City', time_zone: 'Asia/Manila' },
  { id: 505, country_id: 5, title: 'Davao City', time_zone: 'Asia/Manila' },

  // A city-state: the "cities" are the planning-area towns delivery zones are drawn on.
  { id: 601, country_id: 6, title: 'Singapore', time_zone: 'Asia/Singapore' },
  { id: 602, country_id: 6, title: 'Jurong East', time_zone: 'Asia/Singapore' },
  { id: 603, country_id: 6, title: 'Tampines', time_zone: 'Asia/Singapore' },
  { id: 604, country_id: 6, title: 'Woodlands', time_zone: 'Asia/Singapore' },

  { id: 701, country_id: 7, title: 'Phnom Penh', time_zone: 'Asia/Phnom_Penh' },
  { id: 702, country_id: 7, title: 'Siem Reap', time_zone: 'Asia/Phnom_Penh' },
  { id: 703, country_id: 7, title: 'Sihanoukville', time_zone: 'Asia/Phnom_Penh' },
  { id: 704, country_id: 7, title: 'Battambang', time_zone: 'Asia/Phnom_Penh' },

  { id: 801, country_id: 8, title: 'Tokyo', time_zone: 'Asia/Tokyo' },
  { id: 802, country_id: 8, title: 'Osaka', time_zone: 'Asia/Tokyo' },
  { id: 803, country_id: 8, title: 'Kyoto', time_zone: 'Asia/Tokyo' },
  { id: 804, country_id: 8, title: 'Fukuoka', time_zone: 'Asia/Tokyo' },
  { id: 805, country_id: 8, title: 'Sapporo', time_zone: 'Asia/Tokyo' },

  { id: 901, country_id: 9, title: 'Taipei', time_zone: 'Asia/Taipei' },
  { id: 902, country_id: 9, title: 'New Taipei', time_zone: 'Asia/Taipei' },
  { id: 903, country_id: 9, title: 'Taichung', time_zone: 'Asia/Taipei' },
  { id: 904, country_id: 9, title: 'Kaohsiung', time_zone: 'Asia/Taipei' },
  { id: 905, country_id: 9, title: 'Tainan', time_zone: 'Asia/Taipei' },
]);

const ALL_COUNTRIES = ['ID', 'TH', 'VN', 'MY', 'PH', 'SG', 'KH', 'JP', 'TW'];

// Provider ids key VisibilitiesMap and PriceMap (spec §2.9), so they must stay stable.
export const PROVIDERS: readonly Provider[] = Object.freeze([
  { id: 1, title: 'GrabFood', type: 'marketplace', countries: ['ID', 'TH', 'VN', 'MY', 'PH', 'SG', 'KH'] },
  { id: 2, title: 'GoFood', type: 'marketplace', countries: ['ID'] },
  { id: 3, title: 'ShopeeFood', type: 'marketplace', countries: ['ID', 'VN', 'MY'] },
  { id: 4, title: 'foodpanda', type: 'marketplace', countries: ['MY', 'PH', 'SG', 'KH', 'TW'] },
  { id: 5, title: 'LINE MAN', type: 'marketplace', countries: ['TH'] },
  { id: 6, title: 'Uber Eats', type: 'marketplace', countries: ['JP', 'TW'] },
  { id: 7, title: 'klikit', type: 'aggregator', countries: ['ID', 'TH', 'MY', 'PH', 'SG'] },
  { id: 8, title: 'Web ordering', type: 'direct', countries: [...ALL_COUNTRIES] },
  { id: 9, title: 'Kiosk', type: 'direct', countries: [...ALL_COUNTRIES] },
]);

export const PAYMENT_STATUSES: readonly DictionaryRow[] = Object.freeze([
  { id: 1, code: 'PENDING', title: 'Pending' },
  { id: 2, code: 'PAID', title: 'Paid' },
  { id: 3, code: 'FAILED', title: 'Failed' },
  { id: 4, code: 'REFUNDED', title: 'Refunded' },
  { id: 5, code: 'PARTIALLY_REFUNDED', title: 'Partially refunded' },
  { id: 6, code: 'VOIDED', title: 'Voided' },
  { id: 7, code: 'EXPIRED', title: 'Expired' },
]);

export const PAYMENT_METHODS: readonly DictionaryRow[] = Object.freeze([
  { id: 1, code: 'CASH', title: 'Cash' },
  { id: 2, code: 'CARD', title: 'Credit / debit card' },
  { id: 3, code: 'E_WALLET', title: 'E-wallet' },
  // Indonesia's national QR standard; other national QR schemes fall under QR_PAYMENT.
  { id: 4, code: 'QRIS', title: 'QRIS' },
  { id: 5, code: 'QR_PAYMENT', title: 'QR payment' },
  { id: 6, code: 'BANK_TRANSFER', title: 'Bank transfer' },
  { id: 7, code: 'VIRTUAL_ACCOUNT', title: 'Virtual account' },
  { id: 8, code: 'PAY_LATER', title: 'Pay later' },
  { id: 9, code: 'VOUCHER', title: 'Voucher' },
  // Marketplace orders are paid to the provider, which settles with the restaurant later.
  { id: 10, code: 'PROVIDER_SETTLED', title: 'Paid via provider' },
]);

export const PAYMENT_CHANNELS: readonly DictionaryRow[] = Object.freeze([
  { id: 1, code: 'OVO', title: 'OVO' },
  { id: 2, code: 'GOPAY', title: 'GoPay' },
  { id: 3, code: 'DANA', title: 'DANA' },
  { id: 4, code: 'SHOPEEPAY', title: 'ShopeePay' },
  { id: 5, code: 'LINKAJA', title: 'LinkAja' },
  { id: 6, code: 'PROMPTPAY', title: 'PromptPay' },
  { id: 7, code: 'TRUEMONEY', title: 'TrueMoney Wallet' },
  { id: 8, code: 'RABBIT_LINE_PAY', title: 'Rabbit LINE Pay' },
  { id: 9, code: 'MOMO', title: 'MoMo' },
  { id: 10, code: 'ZALOPAY', title: 'ZaloPay' },
  { id: 11, code: 'VNPAY', title: 'VNPAY' },
  { id: 12, code: 'TOUCH_N_GO', title: "Touch 'n Go eWallet" },
  { id: 13, code: 'BOOST', title: 'Boost' },
  { id: 14, code: 'DUITNOW', title: 'DuitNow QR' },
  { id: 15, code: 'GCASH', title: 'GCash' },
  { id: 16, code: 'MAYA', title: 'Maya' },
  { id: 17, code: 'GRABPAY', title: 'GrabPay' },
  { id: 18, code: 'PAYNOW', title: 'PayNow' },
  { id: 19, code: 'ABA_PAY', title: 'ABA Pay' },
  { id: 20, code: 'KHQR', title: 'Bakong KHQR' },
  { id: 21, code: 'PAYPAY', title: 'PayPay' },
  { id: 22, code: 'LINE_PAY', title: 'LINE Pay' },
  { id: 23, code: 'JKOPAY', title: 'JKOPAY' },
  { id: 24, code: 'VISA', title: 'Visa' },
  { id: 25, code: 'MASTERCARD', title: 'Mastercard' },
  { id: 26, code: 'JCB', title: 'JCB' },
  { id: 27, code: 'AMEX', title: 'American Express' },
  { id: 28, code: 'UNIONPAY', title: 'UnionPay' },
]);

/** The city, only if it belongs to that country (the branch-create pair check). */
export function findCity(countryId: number, cityId: number): City | undefined {
  return CITIES.find((c) => c.id === cityId && c.country_id === countryId);
}
