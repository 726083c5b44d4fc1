/** A valid US shipping address (California, which has a region), for tests where any such address will do. */
export const US_ADDRESS = {
  name: 'A',
  line1: '1 Infinite Loop',
  city: 'Cupertino',
  region: 'US-CA',
  postalCode: '95014',
  country: 'US',
};
