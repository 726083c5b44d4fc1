import '@storefront/blocks/blocks.css';
import './shop.css';
import { render } from 'preact';
import { api, config } from './api.ts';
import { App, SetUp } from './app.tsx';
import { startRouter } from './router.tsx';

startRouter(config.basePath);
render(api ? <App /> : <SetUp />, document.getElementById('app')!);
