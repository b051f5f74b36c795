"""The cashier's routes (``config.urls`` includes them): the API of :mod:`cashier.api` and the cash tables'
pages of :mod:`cashier.views`."""

from django.urls import path

from cashier import api, views

urlpatterns = [
    path("cash/", views.lobby, name="cash-lobby"),
    path("cash/new/", views.new, name="cash-new"),
    path("cash/balances/", views.balances, name="cash-balances"),
    path("cash/history/", views.history, name="cash-history"),
    path("cash/history/<int:user_id>/", views.history, name="cash-history-of"),
    path("cash/wait/", views.wait, name="cash-wait"),
    path("cash/<int:table_id>/close/", views.close, name="cash-close"),
    path("cash/<int:table_id>/sit/", views.sit, name="cash-sit"),
    path("cash/<int:table_id>/top-up/", views.top_up, name="cash-top-up"),
    path("cash/<int:table_id>/stand/", views.stand, name="cash-stand"),
    path("api/cashier/", api.AccountView.as_view(), name="api-cashier"),
    path("api/cashier/cash-tables/", api.CashTableList.as_view(), name="api-cash-tables"),
    path(
        "api/cashier/cash-tables/<int:table_id>/close/",
        api.CashTableClose.as_view(),
        name="api-cash-table-close",
    ),
    path("api/cashier/players/<int:user_id>/", api.PlayerAccountView.as_view(), name="api-cashier-player"),
    *(
        path(
            f"api/cashier/players/<int:user_id>/{operation}/",
            api.OperatorView.as_view(operation=operation),
            name=f"api-cashier-{operation}",
        )
        for operation in ("grant", "credit", "debit")
    ),
    path("api/cashier/tables/<int:table_id>/buy-in/", api.BuyInView.as_view(), name="api-cashier-buy-in"),
    path("api/cashier/tables/<int:table_id>/top-up/", api.TopUpView.as_view(), name="api-cashier-top-up"),
    path(
        "api/cashier/tables/<int:table_id>/cash-out/", api.CashOutView.as_view(), name="api-cashier-cash-out"
    ),
]
