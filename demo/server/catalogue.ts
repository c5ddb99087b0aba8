/** The demo shop's name: the payee on payments and the title of hosted checkouts. */
export const SHOP_NAME = 'Makola Market Goods';

/** One thing the shop sells; prices in pesewas (GHS 1 = 100 pesewas), so sums stay exact. */
export interface Product {
  id: string;
  name: string;
  description: string;
  /** Price in pesewas. */
  price: number;
  /** A picture in one character: the demo ships no images. */
  emoji: string;
}

/** What the shop sells. */
export const PRODUCTS: readonly Product[] = [
  { id: 'kente-stole', name: 'Kente stole', description: 'Handwoven in Bonwire, gold and green.', price: 18_000, emoji: '🧣' },
  { id: 'shea-butter', name: 'Shea butter, 250 g', description: 'Unrefined, from a women’s cooperative in Tamale.', price: 3_500, emoji: '🧴' },
  { id: 'dried-mango', name: 'Dried mango, 500 g', description: 'Sun-dried Keitt mangoes from Somanya.', price: 2_550, emoji: '🥭' },
  { id: 'adinkra-tote', name: 'Adinkra tote bag', description: 'Cotton, stamped by hand with the Gye Nyame symbol.', price: 6_000, emoji: '👜' },
  { id: 'gari', name: 'Gari, 1 kg', description: 'Fine, crisp, from Ho.', price: 1_250, emoji: '🌾' },
  { id: 'cocoa-nibs', name: 'Cocoa nibs, 200 g', description: 'Roasted Ashanti cocoa, no sugar.', price: 4_200, emoji: '🍫' },
];

/** The product of an id, if the shop sells it. */
export function productById(id: string): Product | undefined {
  return PRODUCTS.find((p) => p.id === id);
}

const CEDIS = new Intl.NumberFormat('en-GH', { style: 'currency', currency: 'GHS', currencyDisplay: 'code' });

/** A price in pesewas as the shop shows it (`GHS 180.00`). */
export function formatPrice(pesewas: number): string {
  return CEDIS.format(pesewas / 100);
}

/** Pesewas as the cedis a token binds (`18050` → `180.5`). */
export function toCedis(pesewas: number): number {
  return pesewas / 100;
}
