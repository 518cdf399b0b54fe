// Order status dictionary (spec §2.7). Served verbatim by GET /v1/partner/orders/statuses;
// the spec calls it stable across releases, so ids and codes must never change.

const LOCALES = ['en', 'id', 'ja', 'km', 'ms', 'th', 'tl', 'vi', 'zh', 'zh-tw'] as const;
type Locale = (typeof LOCALES)[number];
type LocaleMap = Partial<Record<Locale, string>>;

interface TranslationBtn {
  /** 1 delivery, 2 pickup, 3 dine-in. */
  order_type_id: 1 | 2 | 3;
  action_btn_text: LocaleMap;
  past_order_action_btn_text?: LocaleMap;
}

interface OrderStatusRow {
  id: number;
  status: string;
  translation: LocaleMap;
  translation_btn?: TranslationBtn[];
}

export { STATUS_CODES, type StatusCode } from './status-codes.js';
import type { StatusCode } from './status-codes.js';

export const STATUS_ID: Readonly<Record<StatusCode, number>> = Object.freeze({
  PLACED: 1,
  ACCEPTED: 2,
  CANCELLED: 3,
  READY: 4,
  DELIVERED: 5,
  SCHEDULED: 6,
  'DRIVER ASSIGNED': 7,
  'DRIVER ARRIVED': 8,
  'PICKED UP': 9,
  PENDING: 10,
  VOID: 11,
});

// Ids come from STATUS_ID so the array and the map cannot drift apart.
function row(status: StatusCode, translation: LocaleMap, translation_btn?: TranslationBtn[]): OrderStatusRow {
  return translation_btn
    ? { id: STATUS_ID[status], status, translation, translation_btn }
    : { id: STATUS_ID[status], status, translation };
}

const CANCEL_ORDER: LocaleMap = {
  en: 'Cancel order',
  id: 'Batalkan pesanan',
  ja: '注文をキャンセル',
  km: 'បោះបង់ការបញ្ជាទិញ',
  ms: 'Batalkan pesanan',
  th: 'ยกเลิกออร์เดอร์',
  tl: 'Kanselahin ang order',
  vi: 'Hủy đơn',
  zh: '取消订单',
  'zh-tw': '取消訂單',
};

const ORDER_CANCELLED: LocaleMap = {
  en: 'Order cancelled',
  id: 'Pesanan dibatalkan',
  ja: '注文はキャンセルされました',
  ms: 'Pesanan dibatalkan',
  th: 'ออร์เดอร์ถูกยกเลิกแล้ว',
  vi: 'Đơn đã bị hủy',
  zh: '订单已取消',
  'zh-tw': '訂單已取消',
};

export const ORDER_STATUSES: readonly OrderStatusRow[] = Object.freeze([
  row('PLACED', {
    en: 'Placed',
    id: 'Dipesan',
    ja: '注文済み',
    km: 'បានបញ្ជាទិញ',
    ms: 'Dipesan',
    th: 'สั่งซื้อแล้ว',
    tl: 'Nailagay',
    vi: 'Đã đặt',
    zh: '已下单',
    'zh-tw': '已下單',
  }),
  row('ACCEPTED', {
    en: 'Accepted',
    id: 'Diterima',
    ja: '受付済み',
    km: 'បានទទួល',
    ms: 'Diterima',
    th: 'รับออร์เดอร์แล้ว',
    tl: 'Tinanggap',
    vi: 'Đã chấp nhận',
    zh: '已接单',
    'zh-tw': '已接單',
  }),
  row(
    'CANCELLED',
    {
      en: 'Cancelled',
      id: 'Dibatalkan',
      ja: 'キャンセル済み',
      km: 'បានលុបចោល',
      ms: 'Dibatalkan',
      th: 'ยกเลิกแล้ว',
      tl: 'Kinansela',
      vi: 'Đã hủy',
      zh: '已取消',
      'zh-tw': '已取消',
    },
    [
      { order_type_id: 1, action_btn_text: CANCEL_ORDER, past_order_action_btn_text: ORDER_CANCELLED },
      { order_type_id: 2, action_btn_text: CANCEL_ORDER, past_order_action_btn_text: ORDER_CANCELLED },
      { order_type_id: 3, action_btn_text: CANCEL_ORDER },
    ],
  ),
  row(
    'READY',
    {
      en: 'Ready',
      id: 'Siap',
      ja: '準備完了',
      km: 'រួចរាល់',
      ms: 'Sedia',
      th: 'พร้อมแล้ว',
      tl: 'Handa na',
      vi: 'Sẵn sàng',
      zh: '已备好',
      'zh-tw': '已備妥',
    },
    [
      {
        order_type_id: 1,
        action_btn_text: {
          en: 'Ready for pickup by driver',
          id: 'Siap diambil pengemudi',
          ja: '配達員の受け取り準備完了',
          ms: 'Sedia untuk diambil pemandu',
          th: 'พร้อมให้ไรเดอร์มารับ',
          tl: 'Handa nang kunin ng driver',
          vi: 'Sẵn sàng cho tài xế lấy',
          zh: '待骑手取餐',
          'zh-tw': '待外送員取餐',
        },
      },
      {
        order_type_id: 2,
        action_btn_text: {
          en: 'Ready for customer pickup',
          id: 'Siap diambil pelanggan',
          ja: 'お客様の受け取り準備完了',
          ms: 'Sedia untuk diambil pelanggan',
          th: 'พร้อมให้ลูกค้ามารับ',
          tl: 'Handa nang kunin ng customer',
          vi: 'Sẵn sàng cho khách lấy',
          zh: '待顾客取餐',
          'zh-tw': '待顧客取餐',
        },
      },
      {
        order_type_id: 3,
        action_btn_text: {
          en: 'Ready to serve',
          id: 'Siap disajikan',
          ja: '提供準備完了',
          ms: 'Sedia untuk dihidangkan',
          th: 'พร้อมเสิร์ฟ',
          tl: 'Handa nang ihain',
          vi: 'Sẵn sàng phục vụ',
          zh: '可以上菜',
          'zh-tw': '可以上菜',
        },
      },
    ],
  ),
  row(
    'DELIVERED',
    {
      en: 'Delivered',
      id: 'Terkirim',
      ja: '配達済み',
      km: 'បានដឹកជញ្ជូន',
      ms: 'Dihantar',
      th: 'จัดส่งแล้ว',
      tl: 'Naihatid na',
      vi: 'Đã giao',
      zh: '已送达',
      'zh-tw': '已送達',
    },
    [
      {
        order_type_id: 1,
        action_btn_text: {
          en: 'Mark as delivered',
          id: 'Tandai terkirim',
          ja: '配達済みにする',
          ms: 'Tandakan sebagai dihantar',
          th: 'ทำเครื่องหมายว่าจัดส่งแล้ว',
          vi: 'Đánh dấu đã giao',
          zh: '标记为已送达',
          'zh-tw': '標記為已送達',
        },
        past_order_action_btn_text: {
          en: 'Delivered to customer',
          id: 'Telah diantar ke pelanggan',
          ja: 'お客様へ配達済み',
          ms: 'Telah dihantar kepada pelanggan',
          th: 'จัดส่งถึงลูกค้าแล้ว',
          vi: 'Đã giao cho khách',
          zh: '已送达顾客',
          'zh-tw': '已送達顧客',
        },
      },
      {
        order_type_id: 2,
        action_btn_text: {
          en: 'Mark as picked up',
          id: 'Tandai sudah diambil',
          ja: '受け取り済みにする',
          ms: 'Tandakan sebagai telah diambil',
          th: 'ทำเครื่องหมายว่ารับแล้ว',
          vi: 'Đánh dấu đã lấy',
          zh: '标记为已取餐',
          'zh-tw': '標記為已取餐',
        },
        past_order_action_btn_text: {
          en: 'Picked up by customer',
          id: 'Sudah diambil pelanggan',
          ja: 'お客様受け取り済み',
          ms: 'Telah diambil oleh pelanggan',
          th: 'ลูกค้ารับแล้ว',
          vi: 'Khách đã lấy',
          zh: '顾客已取餐',
          'zh-tw': '顧客已取餐',
        },
      },
      {
        order_type_id: 3,
        action_btn_text: {
          en: 'Mark as served',
          id: 'Tandai sudah disajikan',
          ja: '提供済みにする',
          ms: 'Tandakan sebagai dihidangkan',
          th: 'ทำเครื่องหมายว่าเสิร์ฟแล้ว',
          vi: 'Đánh dấu đã phục vụ',
          zh: '标记为已上菜',
          'zh-tw': '標記為已上菜',
        },
        past_order_action_btn_text: {
          en: 'Served',
          id: 'Sudah disajikan',
          ja: '提供済み',
          ms: 'Telah dihidangkan',
          th: 'เสิร์ฟแล้ว',
          vi: 'Đã phục vụ',
          zh: '已上菜',
          'zh-tw': '已上菜',
        },
      },
    ],
  ),
  row('SCHEDULED', {
    en: 'Scheduled',
    id: 'Terjadwal',
    ja: '予約済み',
    km: 'បានកំណត់ពេល',
    ms: 'Dijadualkan',
    th: 'ตั้งเวลาไว้แล้ว',
    tl: 'Naka-iskedyul',
    vi: 'Đã lên lịch',
    zh: '已预约',
    'zh-tw': '已預約',
  }),
  row('DRIVER ASSIGNED', {
    en: 'Driver Assigned',
    id: 'Pengemudi Ditugaskan',
    ja: '配達員決定',
    km: 'បានចាត់អ្នកដឹកជញ្ជូន',
    ms: 'Pemandu Ditugaskan',
    th: 'มอบหมายคนขับแล้ว',
    tl: 'May Nakatalagang Driver',
    vi: 'Đã có tài xế',
    zh: '已分配骑手',
    'zh-tw': '已指派外送員',
  }),
  // Rarer rows deliberately lack some locales: the spec says rows are not all fully translated,
  // so clients must fall back (to `en`) rather than assume every key exists.
  row('DRIVER ARRIVED', {
    en: 'Driver Arrived',
    id: 'Pengemudi Tiba',
    ja: '配達員到着',
    ms: 'Pemandu Tiba',
    th: 'คนขับมาถึงแล้ว',
    vi: 'Tài xế đã đến',
    zh: '骑手已到店',
    'zh-tw': '外送員已抵達',
  }),
  row('PICKED UP', {
    en: 'Picked Up',
    id: 'Diambil',
    ja: 'ピックアップ済み',
    km: 'បានមកយក',
    ms: 'Telah Diambil',
    th: 'รับอาหารแล้ว',
    tl: 'Nakuha na',
    vi: 'Đã lấy hàng',
    zh: '已取餐',
    'zh-tw': '已取餐',
  }),
  row('PENDING', {
    en: 'Pending',
    id: 'Menunggu',
    ja: '保留中',
    km: 'កំពុងរង់ចាំ',
    ms: 'Menunggu',
    th: 'รอดำเนินการ',
    tl: 'Nakabinbin',
    vi: 'Đang chờ',
    zh: '待处理',
    'zh-tw': '待處理',
  }),
  row('VOID', {
    en: 'Void',
    id: 'Void',
    ja: '無効',
    th: 'โมฆะ',
    vi: 'Vô hiệu',
    zh: '已作废',
    'zh-tw': '已作廢',
  }),
]);

/** Canonical code for a status id; `#<id>` for ids outside the dictionary (never throws). */
export function statusName(id: number): string {
  return ORDER_STATUSES.find((r) => r.id === id)?.status ?? `#${id}`;
}
