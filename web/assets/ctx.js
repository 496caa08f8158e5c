// The page's shared context, filled by app.js: the profile summary and the actions every view
// may call (they change the URL's query and re-render). Kept in its own module so the views
// and app.js do not import each other.
export const ctx = {
  profile: null,     // api/profile
  actions: null,     // see app.js
  status: () => {},  // one line in the tab bar
};
