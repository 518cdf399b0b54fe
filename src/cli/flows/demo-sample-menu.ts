// The sample menu of the docs (docs/examples/menu.sample.yaml, format in docs/menu-push.md), embedded so the
// published package carries it: docs/ is not in package.json "files". `partner demo` pushes it;
// test/cli/demo.test.ts checks that it still says what the copy in the docs says.
export const SAMPLE_MENU_YAML = `# yaml-language-server: $schema=../menu-file.schema.json
# A sample menu for \`partner menu push\` (format: docs/menu-push.md).
# Provider ids ("1", "2") must exist: \`partner providers list\`. Prices are decimal strings.
modifierGroups:
  - key: spice
    title: Spice level
    min: 1
    max: 1
    modifiers:
      - {key: mild, title: Mild, partner_item_id: MOD-MILD, prices: {"1": "0.00", "2": "0.00"}}
      - {key: hot, title: Hot, partner_item_id: MOD-HOT, prices: {"1": "0.00", "2": "0.00"}}
      - {key: extra-hot, title: Extra hot, partner_item_id: MOD-XHOT, prices: {"1": "2000.00", "2": "2000.00"}}
  - key: toppings
    title: Extra toppings
    min: 0
    max: 3
    modifiers:
      - {key: egg, title: Fried egg, partner_item_id: MOD-EGG, prices: {"1": "5000.00", "2": "6000.00"}}
      - {key: krupuk, title: Krupuk, partner_item_id: MOD-KRUPUK, prices: {"1": "3000.00", "2": "3500.00"}}
      - {key: chicken, title: Extra chicken, partner_item_id: MOD-CHICKEN, prices: {"1": "12000.00", "2": "14000.00"}}
sections:
  - key: all-day
    title: All day
    availableTimes:
      "0": {slots: [{startTime: 1000, endTime: 2200}]}
      "1": {slots: [{startTime: 1000, endTime: 1500}, {startTime: 1700, endTime: 2200}]}
      "2": {slots: [{startTime: 1000, endTime: 2200}]}
      "3": {slots: [{startTime: 1000, endTime: 2200}]}
      "4": {slots: [{startTime: 1000, endTime: 2200}]}
      "5": {slots: [{startTime: 1000, endTime: 2330}]}
      "6": {disabled: true, slots: [{startTime: 0, endTime: 0}]}
    categories:
      - key: rice
        title: Rice
        items:
          - {key: nasi-goreng, title: Nasi goreng, partner_item_id: SKU-NG, prices: {"1": "35000.00", "2": "38000.00"}, modifierGroups: [spice, toppings]}
          - {key: nasi-ayam, title: Nasi ayam bakar, partner_item_id: SKU-NAB, prices: {"1": "42000.00", "2": "45000.00"}, modifierGroups: [spice]}
          - {key: nasi-uduk, title: Nasi uduk, partner_item_id: SKU-NU, prices: {"1": "30000.00", "2": "32000.00"}, modifierGroups: [toppings]}
      - key: noodles
        title: Noodles
        items:
          - {key: mie-goreng, title: Mie goreng, partner_item_id: SKU-MG, prices: {"1": "33000.00", "2": "36000.00"}, modifierGroups: [spice, toppings]}
          - {key: mie-ayam, title: Mie ayam, partner_item_id: SKU-MA, prices: {"1": "28000.00", "2": "30000.00"}, modifierGroups: [toppings]}
  - key: drinks
    title: Drinks
    categories:
      - key: cold
        title: Cold drinks
        items:
          - {key: es-teh, title: Es teh manis, partner_item_id: SKU-ET, prices: {"1": "8000.00", "2": "9000.00"}}
          - {key: es-jeruk, title: Es jeruk, partner_item_id: SKU-EJ, prices: {"1": "12000.00", "2": "13000.00"}}
      - key: hot
        title: Hot drinks
        items:
          - {key: kopi-tubruk, title: Kopi tubruk, partner_item_id: SKU-KT, prices: {"1": "10000.00", "2": "11000.00"}}
`;
